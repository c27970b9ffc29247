import type { StreamedEvent } from '@agent-ledger/client';
import { AgentLedgerApiError, AgentLedgerClient } from '@agent-ledger/client';
import { followEvents } from './live-events';

/*
 * The console's live pages follow the client's event iterators through
 * followEvents: here against a scripted fetch (each connection: its frames,
 * then how it ends), the same client the console runs in the browser.
 */

function frame(n: number): string {
  const event = { type: `E${n}`, streamName: 'run-r1', revision: n - 1, position: `${n}:${n}`, data: { n }, metadata: {}, created: '2026-12-01T00:00:00.000Z' };
  return `id: ${n}:${n}\nevent: E${n}\ndata: ${JSON.stringify(event)}\n\n`;
}

type Step = { readonly text: string; readonly ending: 'drop' | 'open' } | { readonly status: number } | { readonly networkError: true };

function scriptedFetch(script: readonly Step[]) {
  const requests: { url: string; headers: Record<string, string>; signal: AbortSignal }[] = [];
  const fetch = async (url: string, init: RequestInit): Promise<Response> => {
    const step = script[requests.length] ?? { networkError: true };
    requests.push({ url, headers: init.headers as Record<string, string>, signal: init.signal as AbortSignal });
    if ('networkError' in step) throw new TypeError('Failed to fetch');
    if ('status' in step) {
      return new Response(JSON.stringify({ statusCode: step.status, error: 'Not Found', code: 'RUN_NOT_FOUND', message: 'Run r9 was not found' }), {
        status: step.status,
        headers: { 'content-type': 'application/json' },
      });
    }
    const signal = init.signal as AbortSignal;
    let pulls = 0;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        signal.addEventListener('abort', () => {
          try {
            controller.error(new DOMException('aborted', 'AbortError'));
          } catch {
            // Ended already.
          }
        });
      },
      pull(controller) {
        pulls += 1;
        if (pulls === 1) controller.enqueue(new TextEncoder().encode(step.text));
        else if (step.ending === 'drop') controller.error(new TypeError('network error'));
        else return new Promise<void>(() => undefined);
        return undefined;
      },
    });
    return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
  };
  return { fetch, requests };
}

/** Resolves when `check` holds, polling every few ms (the streams run on their own). */
async function until(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

describe('followEvents', () => {
  beforeEach(() => jest.spyOn(console, 'warn').mockImplementation(() => undefined));
  afterEach(() => jest.restoreAllMocks());

  it('delivers each event once across a dropped connection and a failed reconnection, saying when it is live, with the key and Last-Event-ID', async () => {
    const { fetch, requests } = scriptedFetch([{ text: frame(1) + frame(2), ending: 'drop' }, { networkError: true }, { text: frame(3), ending: 'open' }]);
    const client = new AgentLedgerClient({ baseUrl: 'http://console.test', apiKey: 'k1', fetch });
    const events: string[] = [];
    const live: boolean[] = [];
    const stream = followEvents((options) => client.events({ ...options, from: 'now', reconnect: { ...options.reconnect, initialDelayMs: 1 } }), {
      onEvent: (event: StreamedEvent) => events.push(event.position),
      onLive: (connected) => live.push(connected),
    });
    await until(() => events.length === 3);
    stream.close();
    expect(events).toEqual(['1:1', '2:2', '3:3']);
    expect(live).toEqual([true, false, false, true]);
    expect(requests.map((r) => [r.url, r.headers['last-event-id'], r.headers.authorization])).toEqual([
      ['http://console.test/events?from=now', undefined, 'Bearer k1'],
      ['http://console.test/events', '2:2', 'Bearer k1'],
      ['http://console.test/events', '2:2', 'Bearer k1'],
    ]);
  });

  it('stops on a refusal (404) and hands it over as the typed error', async () => {
    const { fetch, requests } = scriptedFetch([{ status: 404 }]);
    const client = new AgentLedgerClient({ baseUrl: 'http://console.test', fetch });
    let fatal: AgentLedgerApiError | null = null;
    followEvents((options) => client.runEvents('r9', options), { onEvent: () => undefined, onFatal: (error) => (fatal = error) });
    await until(() => fatal !== null);
    expect(fatal).toBeInstanceOf(AgentLedgerApiError);
    expect(fatal).toMatchObject({ status: 404, code: 'RUN_NOT_FOUND' });
    expect(requests).toHaveLength(1);
  });

  it('close() ends the stream and its connection, without a reconnection', async () => {
    const { fetch, requests } = scriptedFetch([{ text: frame(1), ending: 'open' }]);
    const client = new AgentLedgerClient({ baseUrl: 'http://console.test', fetch });
    const events: string[] = [];
    const live: boolean[] = [];
    const stream = followEvents((options) => client.runEvents('r1', options), { onEvent: (event) => events.push(event.position), onLive: (connected) => live.push(connected) });
    await until(() => events.length === 1);
    stream.close();
    await until(() => requests[0]?.signal.aborted === true);
    expect(events).toEqual(['1:1']);
    expect(live).toEqual([true]);
    expect(requests).toHaveLength(1);
  });
});
