import { AgentLedgerClient } from '../client';
import { isTerminalRunEvent, TERMINAL_RUN_EVENT_TYPES } from '../contract/vocabulary';
import { AgentLedgerApiError } from '../errors/api-error';
import { AgentLedgerConnectionError } from '../errors/connection-error';
import { AgentLedgerStreamError } from '../errors/stream-error';
import { HttpTransport } from '../http/transport';
import type { StreamedEvent } from '../contract/streamed-event';
import { AgentLedgerStreamEndedError, eventStream, MalformedFrameError } from './event-stream';

/*
 * The reconnection logic of the event iterator, against a scripted fetch
 * (each connection: the frames it sends, then how it ends). The same
 * iterator runs against the real service in test/client/.
 */

function frame(n: number): string {
  const event = { type: `E${n}`, streamName: 'run-r1', revision: n - 1, position: `${n}:${n}`, data: { n }, metadata: {}, created: '2026-12-01T00:00:00.000Z' };
  return `id: ${n}:${n}\nevent: E${n}\ndata: ${JSON.stringify(event)}\n\n`;
}

type Ending = 'drop' | 'end' | 'open';
interface Connection {
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly signal: AbortSignal;
  cancelled: boolean;
}

/** A fetch whose n-th call answers `script[n]`: a status, or SSE text and how the body ends. */
function scriptedFetch(script: ReadonlyArray<{ readonly status?: number; readonly text?: string; readonly ending?: Ending; readonly networkError?: boolean }>) {
  const connections: Connection[] = [];
  const fetch = async (url: string, init: RequestInit): Promise<Response> => {
    const step = script[connections.length] ?? { networkError: true };
    const connection: Connection = { url, headers: init.headers as Record<string, string>, signal: init.signal as AbortSignal, cancelled: false };
    connections.push(connection);
    if (step.networkError === true) throw new TypeError('fetch failed');
    if (step.status !== undefined && step.status !== 200) {
      return new Response(JSON.stringify({ statusCode: step.status, error: 'x', code: `CODE_${step.status}`, message: 'refused', field: 'Last-Event-ID' }), {
        status: step.status,
        headers: { 'content-type': 'application/json' },
      });
    }
    let pulls = 0;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        connection.signal.addEventListener('abort', () => {
          try {
            controller.error(new DOMException('aborted', 'AbortError'));
          } catch {
            // Already closed or errored: nothing left to abort.
          }
        });
      },
      // The text first; the ending at the next read (an error in start() would discard the queued text).
      pull(controller) {
        pulls += 1;
        if (pulls === 1) controller.enqueue(new TextEncoder().encode(`retry: 1000\n: hello\n\n${step.text ?? ''}`));
        else if (step.ending === 'end') controller.close();
        else if (step.ending === 'drop') controller.error(new TypeError('terminated'));
        else return new Promise<void>(() => undefined);
        return undefined;
      },
      cancel() {
        connection.cancelled = true;
      },
    });
    return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
  };
  return { fetch, connections };
}

function transportWith(fetch: (url: string, init: RequestInit) => Promise<Response>): HttpTransport {
  return new HttpTransport({ baseUrl: 'http://ledger.test', apiKey: 'k', fetch });
}

async function take(iterator: AsyncIterableIterator<StreamedEvent>, count: number): Promise<string[]> {
  const ids: string[] = [];
  for await (const event of iterator) {
    ids.push(event.position);
    if (ids.length === count) break;
  }
  return ids;
}

const fast = { initialDelayMs: 1, maxDelayMs: 2 };

describe('eventStream', () => {
  it('reconnects after a dropped connection with Last-Event-ID of the last event yielded: no loss, no duplicate', async () => {
    const { fetch, connections } = scriptedFetch([
      { text: frame(1) + frame(2) + 'id: 3:3\nevent: E3\ndata: {"partial', ending: 'drop' },
      { text: frame(3) + frame(4), ending: 'end' },
      { text: frame(5), ending: 'open' },
    ]);
    const ids = await take(eventStream(transportWith(fetch), '/runs/r1/events', { reconnect: fast }), 5);
    expect(ids).toEqual(['1:1', '2:2', '3:3', '4:4', '5:5']);
    expect(connections.map((c) => [c.url, c.headers['last-event-id'], c.headers.authorization, c.headers.accept])).toEqual([
      ['http://ledger.test/runs/r1/events', undefined, 'Bearer k', 'text/event-stream'],
      ['http://ledger.test/runs/r1/events', '2:2', 'Bearer k', 'text/event-stream'],
      ['http://ledger.test/runs/r1/events', '4:4', 'Bearer k', 'text/event-stream'],
    ]);
    expect(connections[2]?.signal.aborted).toBe(true);
  });

  it('reconnects after an `event: error` frame', async () => {
    const { fetch, connections } = scriptedFetch([
      { text: frame(1) + 'event: error\ndata: {"code":"STORE_UNAVAILABLE","message":"reconnect"}\n\n' + frame(2), ending: 'open' },
      { text: frame(2), ending: 'open' },
    ]);
    expect(await take(eventStream(transportWith(fetch), '/events', { reconnect: fast }), 2)).toEqual(['1:1', '2:2']);
    expect(connections.map((c) => c.headers['last-event-id'])).toEqual([undefined, '1:1']);
  });

  it('starts from a given lastEventId, and sends from=now only while it has no event id', async () => {
    const { fetch, connections } = scriptedFetch([{ text: frame(7), ending: 'drop' }, { text: frame(8), ending: 'open' }]);
    expect(await take(eventStream(transportWith(fetch), '/events', { from: 'now', reconnect: fast }), 2)).toEqual(['7:7', '8:8']);
    expect(connections.map((c) => c.url)).toEqual(['http://ledger.test/events?from=now', 'http://ledger.test/events']);
    const resumed = scriptedFetch([{ text: frame(9), ending: 'open' }]);
    expect(await take(eventStream(transportWith(resumed.fetch), '/events', { from: 'now', lastEventId: '8:8' }), 1)).toEqual(['9:9']);
    expect(resumed.connections.map((c) => [c.url, c.headers['last-event-id']])).toEqual([['http://ledger.test/events', '8:8']]);
  });

  it('throws an error answer that a retry cannot change (4xx) at once', async () => {
    const { fetch, connections } = scriptedFetch([{ status: 400 }]);
    const failure = take(eventStream(transportWith(fetch), '/events', { reconnect: fast }), 1);
    await expect(failure).rejects.toBeInstanceOf(AgentLedgerApiError);
    await expect(failure).rejects.toMatchObject({ status: 400, code: 'CODE_400', field: 'Last-Event-ID' });
    expect(connections).toHaveLength(1);
  });

  it('gives up after maxAttempts connections in a row without an event, with a typed error naming the last event id', async () => {
    const { fetch, connections } = scriptedFetch([{ text: frame(1), ending: 'drop' }, { status: 503 }, { networkError: true }, { text: '', ending: 'end' }]);
    const failure = take(eventStream(transportWith(fetch), '/events', { reconnect: { ...fast, maxAttempts: 3 } }), 5);
    await expect(failure).rejects.toBeInstanceOf(AgentLedgerStreamError);
    await expect(failure).rejects.toMatchObject({ attempts: 4, lastEventId: '1:1' });
    await expect(failure.catch((error: AgentLedgerStreamError) => error.cause)).resolves.toBeInstanceOf(AgentLedgerStreamEndedError);
    expect(connections).toHaveLength(4);
    const network = scriptedFetch([]);
    const unreachable = take(eventStream(transportWith(network.fetch), '/events', { reconnect: { ...fast, maxAttempts: 0 } }), 1);
    await expect(unreachable.catch((error: AgentLedgerStreamError) => error.cause)).resolves.toMatchObject({ reason: 'network' });
    await expect(unreachable).rejects.toBeInstanceOf(AgentLedgerStreamError);
    expect((await unreachable.catch((error: AgentLedgerStreamError) => error.cause)) instanceof AgentLedgerConnectionError).toBe(true);
  });

  it('throws on a frame whose data is not JSON', async () => {
    const { fetch } = scriptedFetch([{ text: 'id: 1:1\ndata: {not json\n\n', ending: 'open' }]);
    await expect(take(eventStream(transportWith(fetch), '/events'), 1)).rejects.toBeInstanceOf(MalformedFrameError);
  });

  it('return() during a pending read closes the connection at once', async () => {
    const { fetch, connections } = scriptedFetch([{ text: frame(1), ending: 'open' }]);
    const iterator = eventStream(transportWith(fetch), '/events');
    expect((await iterator.next()).value?.position).toBe('1:1');
    const pending = iterator.next();
    await iterator.return?.();
    await expect(pending).resolves.toEqual({ done: true, value: undefined });
    expect(connections[0]?.signal.aborted).toBe(true);
    await expect(iterator.next()).resolves.toEqual({ done: true, value: undefined });
  });

  it('ends quietly, closing the connection, when the signal aborts', async () => {
    const { fetch, connections } = scriptedFetch([{ text: frame(1), ending: 'open' }]);
    const controller = new AbortController();
    const ids: string[] = [];
    for await (const event of eventStream(transportWith(fetch), '/events', { signal: controller.signal })) {
      ids.push(event.position);
      setTimeout(() => controller.abort(), 5);
    }
    expect(ids).toEqual(['1:1']);
    expect(connections).toHaveLength(1);
    expect(connections[0]?.signal.aborted).toBe(true);
    const aborted = new AbortController();
    aborted.abort();
    expect(await take(eventStream(transportWith(fetch), '/events', { signal: aborted.signal }), 1)).toEqual([]);
    expect(connections).toHaveLength(1);
  });

  it('tells onConnection of each connection opened and each loss, with the wait and where it resumes; a hook that throws ends the iteration with its error', async () => {
    const { fetch } = scriptedFetch([{ text: frame(1), ending: 'drop' }, { networkError: true }, { text: frame(2), ending: 'open' }]);
    const changes: unknown[] = [];
    const ids = await take(eventStream(transportWith(fetch), '/events', { reconnect: fast, onConnection: (change) => changes.push(change) }), 2);
    expect(ids).toEqual(['1:1', '2:2']);
    expect(changes).toEqual([
      { state: 'open', lastEventId: null },
      { state: 'lost', cause: expect.any(TypeError), attempt: 1, retryInMs: 1, lastEventId: '1:1' },
      { state: 'lost', cause: expect.any(AgentLedgerConnectionError), attempt: 2, retryInMs: 2, lastEventId: '1:1' },
      { state: 'open', lastEventId: '1:1' },
    ]);
    const unreachable = scriptedFetch([]);
    const stopped = new Error('the first connection failed: not retried');
    const failure = take(
      eventStream(transportWith(unreachable.fetch), '/events', {
        reconnect: fast,
        onConnection: (change) => {
          if (change.state === 'lost') throw stopped;
        },
      }),
      1,
    );
    await expect(failure).rejects.toBe(stopped);
    expect(unreachable.connections).toHaveLength(1);
    const opened = scriptedFetch([{ text: frame(1), ending: 'open' }]);
    const refused = new Error('not now');
    await expect(
      take(
        eventStream(transportWith(opened.fetch), '/events', {
          onConnection: () => {
            throw refused;
          },
        }),
        1,
      ),
    ).rejects.toBe(refused);
    expect(opened.connections[0]?.signal.aborted).toBe(true);
  });
});

describe('AgentLedgerClient.followRun', () => {
  /** A frame of run r1's stream: event `type` at revision n - 1, position `n:n`. */
  function runFrame(n: number, type: string): string {
    const event = { type, streamName: 'run-r1', revision: n - 1, position: `${n}:${n}`, data: {}, metadata: {}, created: '2026-12-01T00:00:00.000Z' };
    return `id: ${n}:${n}\nevent: ${type}\ndata: ${JSON.stringify(event)}\n\n`;
  }

  const clientWith = (fetch: (url: string, init: RequestInit) => Promise<Response>) => new AgentLedgerClient({ baseUrl: 'http://ledger.test', apiKey: 'k', fetch });

  async function typesOf(iterator: AsyncIterableIterator<StreamedEvent>): Promise<string[]> {
    const types: string[] = [];
    for await (const event of iterator) types.push(event.type);
    return types;
  }

  it.each(['RunCompleted', 'RunFailed', 'RunCancelled'])('ends after %s, closing its connection before the event is handed over, though the server keeps it open', async (terminal) => {
    const { fetch, connections } = scriptedFetch([
      { text: runFrame(1, 'RunRequested') + runFrame(2, 'RunClaimed') + runFrame(3, terminal) + runFrame(4, 'AuditGapDetected'), ending: 'open' },
    ]);
    const iterator = clientWith(fetch).followRun('r1');
    expect((await iterator.next()).value?.type).toBe('RunRequested');
    expect((await iterator.next()).value?.type).toBe('RunClaimed');
    expect(connections[0]?.signal.aborted).toBe(false);
    const last = await iterator.next();
    expect(last).toEqual({ done: false, value: expect.objectContaining({ type: terminal, position: '3:3' }) });
    expect(connections[0]?.signal.aborted).toBe(true);
    await expect(iterator.next()).resolves.toEqual({ done: true, value: undefined });
    expect(connections).toHaveLength(1);
    expect(connections[0]?.url).toBe('http://ledger.test/runs/r1/events');
  });

  it('does not end while the run waits for a person: the events after a decision or an input, up to the terminal one, are yielded', async () => {
    const { fetch } = scriptedFetch([
      {
        text: ['RunRequested', 'RunClaimed', 'ApprovalRequested', 'ApprovalGranted', 'RunClaimed', 'InputRequested', 'InputSubmitted', 'RunClaimed', 'RunCompleted']
          .map((type, index) => runFrame(index + 1, type))
          .join(''),
        ending: 'open',
      },
    ]);
    expect(await typesOf(clientWith(fetch).followRun('r1'))).toEqual([
      'RunRequested',
      'RunClaimed',
      'ApprovalRequested',
      'ApprovalGranted',
      'RunClaimed',
      'InputRequested',
      'InputSubmitted',
      'RunClaimed',
      'RunCompleted',
    ]);
  });

  it('resumes after a dropped connection (Last-Event-ID of the last event yielded), then ends after the terminal event', async () => {
    const { fetch, connections } = scriptedFetch([
      { text: runFrame(1, 'RunRequested') + runFrame(2, 'RunClaimed') + 'id: 3:3\nevent: StepStarted\ndata: {"partial', ending: 'drop' },
      { text: runFrame(3, 'StepStarted'), ending: 'end' },
      { text: runFrame(4, 'RunFailed'), ending: 'open' },
    ]);
    const changes: string[] = [];
    const types = await typesOf(clientWith(fetch).followRun('r1', { reconnect: fast, onConnection: (change) => changes.push(change.state) }));
    expect(types).toEqual(['RunRequested', 'RunClaimed', 'StepStarted', 'RunFailed']);
    expect(connections.map((c) => c.headers['last-event-id'])).toEqual([undefined, '2:2', '3:3']);
    expect(changes).toEqual(['open', 'lost', 'open', 'lost', 'open']);
    expect(connections.every((c) => c.signal.aborted)).toBe(true);
  });

  it('ends quietly when the signal aborts while the run waits', async () => {
    const { fetch, connections } = scriptedFetch([{ text: runFrame(1, 'RunRequested') + runFrame(2, 'ApprovalRequested'), ending: 'open' }]);
    const controller = new AbortController();
    const types: string[] = [];
    for await (const event of clientWith(fetch).followRun('r1', { signal: controller.signal })) {
      types.push(event.type);
      if (event.type === 'ApprovalRequested') controller.abort();
    }
    expect(types).toEqual(['RunRequested', 'ApprovalRequested']);
    expect(connections[0]?.signal.aborted).toBe(true);
  });

  it('runEvents and events do not end at a terminal event', async () => {
    const { fetch } = scriptedFetch([{ text: runFrame(1, 'RunCompleted') + runFrame(2, 'AuditGapDetected'), ending: 'open' }, { text: runFrame(1, 'RunCompleted') + runFrame(2, 'RunRequested'), ending: 'open' }]);
    const client = clientWith(fetch);
    expect(await take(client.runEvents('r1'), 2)).toEqual(['1:1', '2:2']);
    expect(await take(client.events(), 2)).toEqual(['1:1', '2:2']);
  });

  it('refuses at once an empty run id, from, lastEventId and options that are not an object, saying why', () => {
    const { fetch, connections } = scriptedFetch([]);
    const client = clientWith(fetch);
    expect(() => client.followRun('')).toThrow(new TypeError('runId must be a non-empty string (got "")'));
    expect(() => client.followRun('r1', { from: 'now' } as never)).toThrow(/^followRun does not take from: it reads the run from its first event/);
    expect(() => client.followRun('r1', { lastEventId: '4:4' } as never)).toThrow(/^followRun does not take lastEventId: .*use runEvents\(runId, \{ lastEventId \}\)/);
    expect(() => client.followRun('r1', null as never)).toThrow(new TypeError("followRun's options must be an object (got null)"));
    expect(connections).toHaveLength(0);
  });
});

describe('isTerminalRunEvent', () => {
  it('is true for the three events that settle a run only', () => {
    expect(TERMINAL_RUN_EVENT_TYPES).toEqual(['RunCompleted', 'RunFailed', 'RunCancelled']);
    expect(['RunCompleted', 'RunFailed', 'RunCancelled', 'RunRequeued', 'ApprovalRequested', 'InputRequested', 'AuditGapDetected', 'RunRequeuedByOperator'].filter((type) => isTerminalRunEvent({ type }))).toEqual([
      'RunCompleted',
      'RunFailed',
      'RunCancelled',
    ]);
  });
});
