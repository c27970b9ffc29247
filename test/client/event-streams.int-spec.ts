/**
 * The client's event iterators against the real service, through a proxy
 * that drops the connection mid-stream (usually in the middle of a frame)
 * several times: the sequence of events the iterator yields is exactly the
 * store's (same positions, same order), nothing lost and nothing repeated,
 * history and live events alike; every reconnection sent `Last-Event-ID` of
 * the last event yielded.
 */
import { randomUUID } from 'node:crypto';
import type { StreamedEvent } from '@agent-ledger/client';
import { AgentLedgerClient } from '@agent-ledger/client';
import { scaled } from '../support/time-scale';
import type { ClientTestService } from './support/client-test-service';
import { conforms, startClientTestService } from './support/client-test-service';
import type { DroppingProxy } from './support/dropping-proxy';
import { startDroppingProxy } from './support/dropping-proxy';

describe('event iterators of AgentLedgerClient against the real service', () => {
  jest.setTimeout(scaled(60_000));
  let service: ClientTestService;
  let direct: AgentLedgerClient;
  const proxies: DroppingProxy[] = [];

  beforeAll(async () => {
    service = await startClientTestService();
    direct = new AgentLedgerClient({ baseUrl: service.baseUrl, apiKey: service.admin.key });
  });

  afterAll(async () => {
    for (const proxy of proxies) await proxy.close();
    await service?.close();
  });

  async function proxyWithCuts(cuts: readonly number[]): Promise<{ proxy: DroppingProxy; client: AgentLedgerClient }> {
    const proxy = await startDroppingProxy(service.baseUrl, cuts);
    proxies.push(proxy);
    return { proxy, client: new AgentLedgerClient({ baseUrl: proxy.baseUrl, apiKey: service.admin.key }) };
  }

  /** Runs started and executed during their request (each leaves a handful of events in the store). */
  async function interactiveRuns(count: number, agent = 'clock'): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) ids.push((await direct.startRun({ agent, input: `run ${i}`, mode: 'interactive', runId: `ev-${randomUUID()}` })).runId);
    return ids;
  }

  /** Takes events from `iterator` until `until` says so; checks each against the contract. */
  async function collect(iterator: AsyncIterableIterator<StreamedEvent>, until: (events: readonly StreamedEvent[]) => boolean | Promise<boolean>): Promise<StreamedEvent[]> {
    const events: StreamedEvent[] = [];
    const next = async (): Promise<void> => {
      const result = await iterator.next();
      if (result.done === true) throw new Error(`The iterator ended after ${events.length} events`);
      events.push(conforms('StreamedEvent', result.value));
    };
    while (!(await until(events))) await next();
    return events;
  }

  it('GET /events: history then live, cut five times mid-stream, yields exactly the store sequence', async () => {
    await interactiveRuns(8);
    const history = await service.runEvents();
    expect(history.length).toBeGreaterThan(40);
    const { proxy, client } = await proxyWithCuts([700, 1333, 2048, 999, 4000]);
    const iterator = client.events({ reconnect: { initialDelayMs: 5, maxDelayMs: 20 } });
    try {
      const first = await collect(iterator, (events) => events.length === history.length);
      expect(first.map((event) => event.position)).toEqual(history.map((event) => event.position));
      expect(first.map((event) => [event.streamName, event.revision, event.type])).toEqual(history.map((event) => [event.streamName, Number(event.revision), event.type]));
      // Live: events recorded while the iterator follows the stream, with the remaining cuts.
      await interactiveRuns(3);
      const all = await service.runEvents();
      const live = await collect(iterator, (events) => first.length + events.length === all.length);
      expect([...first, ...live].map((event) => event.position)).toEqual(all.map((event) => event.position));
    } finally {
      await iterator.return?.();
    }
    const streams = proxy.requests.filter((request) => request.path.startsWith('/events'));
    expect(streams.filter((request) => request.cut)).toHaveLength(5);
    // Each reconnection resumed right after the last event yielded before the cut.
    const resumedAfter = streams.map((request) => request.headers['last-event-id']);
    expect(resumedAfter[0]).toBeUndefined();
    const positions = (await service.runEvents()).map((event) => String(event.position));
    const resumePoints = resumedAfter.slice(1).map((id) => positions.indexOf(id as string));
    expect(resumePoints).toHaveLength(5);
    expect(resumePoints.every((index) => index >= 0)).toBe(true);
    expect([...resumePoints].sort((a, b) => a - b)).toEqual(resumePoints);
  });

  it('GET /runs/{runId}/events: one run, cut three times, yields exactly its stream', async () => {
    const [runId] = await interactiveRuns(1, 'writer');
    const expected = (await service.runEvents()).filter((event) => event.streamName === `run-${runId as string}`);
    expect(expected.length).toBeGreaterThan(5);
    const { proxy, client } = await proxyWithCuts([500, 800, 650]);
    const iterator = client.runEvents(runId as string, { reconnect: { initialDelayMs: 5 } });
    const events = await collect(iterator, (taken) => taken.length === expected.length).finally(() => iterator.return?.());
    expect(events.map((event) => [event.position, event.revision, event.type])).toEqual(expected.map((event) => [event.position, Number(event.revision), event.type]));
    expect(proxy.requests.filter((request) => request.cut)).toHaveLength(3);
  });

  it('from: now skips the history; break closes the connection', async () => {
    const { proxy, client } = await proxyWithCuts([]);
    const iterator = client.events({ from: 'now' });
    const firstEvent = iterator.next();
    const stream = await proxy.answered('/events?from=now');
    const [runId] = await interactiveRuns(1);
    const first = await firstEvent;
    expect(first.value).toMatchObject({ type: 'RunRequested', streamName: `run-${runId as string}`, revision: 0 });
    await iterator.return?.();
    expect(stream.cut).toBe(false);
    // The connection is closed: the proxy sees its client go, without any cut of its own.
    const deadline = Date.now() + scaled(5_000);
    while (!stream.closed && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(stream.closed).toBe(true);
    await expect(iterator.next()).resolves.toEqual({ done: true, value: undefined });
  });

  it('a run that does not exist: 404 RUN_NOT_FOUND at once, no reconnection', async () => {
    const { proxy, client } = await proxyWithCuts([]);
    await expect(collect(client.runEvents(`missing-${randomUUID()}`), () => false)).rejects.toMatchObject({ name: 'AgentLedgerApiError', status: 404, code: 'RUN_NOT_FOUND' });
    expect(proxy.requests).toHaveLength(1);
  });
});
