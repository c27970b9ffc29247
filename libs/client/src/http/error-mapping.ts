import type { ApiErrorBody } from '../contract/api-error-body';
import { AgentLedgerApiError } from '../errors/api-error';

const REASON_PHRASES: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

/**
 * The error of an answer with an error status: the API's error body typed,
 * or, for a body that is not one (not JSON, or without a string `code` and
 * `message`), code `HTTP_<status>` and the text as the message.
 */
export function apiErrorOf(answer: { readonly status: number; readonly text: string; readonly contentType: string | null; readonly retryAfter: string | null }, request: string): AgentLedgerApiError {
  const retryAfterSeconds = answer.retryAfter !== null && /^\d+$/.test(answer.retryAfter.trim()) ? Number(answer.retryAfter.trim()) : undefined;
  return new AgentLedgerApiError({ status: answer.status, body: errorBodyOf(answer), request, ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }) });
}

function errorBodyOf(answer: { readonly status: number; readonly text: string; readonly contentType: string | null }): ApiErrorBody {
  const parsed = isJson(answer.contentType) ? parseOrNull(answer.text) : null;
  if (isErrorBody(parsed)) return parsed;
  const text = answer.text.trim();
  return {
    statusCode: answer.status,
    error: REASON_PHRASES[answer.status] ?? 'Error',
    code: `HTTP_${answer.status}`,
    message: text === '' ? `The service answered ${answer.status} without an error body` : text.length > 500 ? `${text.slice(0, 500)}...` : text,
  };
}

/** Whether a `Content-Type` is JSON (`application/json`, with or without parameters). */
export function isJson(contentType: string | null): boolean {
  return contentType !== null && /^application\/json\s*(;|$)/i.test(contentType.trim());
}

function parseOrNull(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    // Not JSON after all: the caller describes the answer by its text.
    return null;
  }
}

function isErrorBody(value: unknown): value is ApiErrorBody {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const body = value as Record<string, unknown>;
  return typeof body.code === 'string' && typeof body.message === 'string' && typeof body.statusCode === 'number';
}
