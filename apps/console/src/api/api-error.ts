/** An answer of the service other than 2xx, with the error body's code and message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field: string | null = null,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /** Builds the error from an answer's status and its (possibly non-JSON) body text. */
  static fromAnswer(status: number, text: string): ApiError {
    try {
      const body = JSON.parse(text) as { code?: unknown; message?: unknown; field?: unknown };
      const message = typeof body.message === 'string' ? body.message : Array.isArray(body.message) ? body.message.join('; ') : `HTTP ${status}`;
      return new ApiError(status, typeof body.code === 'string' ? body.code : `HTTP_${status}`, message, typeof body.field === 'string' ? body.field : null);
    } catch {
      return new ApiError(status, `HTTP_${status}`, text.trim() === '' ? `HTTP ${status}` : text.trim().slice(0, 300));
    }
  }
}
