import type { ServerErrorResponse } from '@grpc/grpc-js';

/** A long-lived call (read, subscription, batch append) the server may have to end on stop. */
export interface OpenCall {
  /** Ends the call with `error` as its status; resolves once the status has been handed to the transport. */
  abort(error: ServerErrorResponse): Promise<void>;
}

/** The writable side of a server call, as grpc-js exposes it. */
interface EndableCall {
  readonly writableFinished: boolean;
  readonly cancelled: boolean;
  emit(event: 'error', error: ServerErrorResponse): boolean;
  once(event: 'finish' | 'close', listener: () => void): unknown;
}

/** Abort a grpc-js server call by emitting `error`, which makes grpc-js send that status after pending writes. */
export function abortCall(call: EndableCall, error: ServerErrorResponse, timeoutMs = 1_000): Promise<void> {
  if (call.writableFinished || call.cancelled) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, timeoutMs);
    const done = (): void => {
      clearTimeout(timer);
      resolve();
    };
    call.once('finish', done);
    call.once('close', done);
    call.emit('error', error);
  });
}

/**
 * Registry of the calls still open. Stopping the server ends them first with a status of its
 * choosing (UNAVAILABLE), so clients see a clean "server went away" instead of a transport
 * cancellation, and grpc-js can then shut down without force.
 */
export class OpenCalls {
  private readonly calls = new Set<OpenCall>();

  /** Number of calls currently registered. */
  get size(): number {
    return this.calls.size;
  }

  /** Registers a call; returns the function to call when it ends on its own. */
  add(call: OpenCall): () => void {
    this.calls.add(call);
    return () => this.calls.delete(call);
  }

  /** Ends every registered call with `error` and waits until their statuses are sent. */
  async abortAll(error: ServerErrorResponse): Promise<void> {
    const calls = [...this.calls];
    this.calls.clear();
    await Promise.all(calls.map((call) => call.abort(error)));
  }
}
