/**
 * `followRun` against the real service (in this process, embedded stores, one
 * worker): the iteration ends after the event that settles the run, and only
 * then, whatever the way the run ends (completed, failed by a denial,
 * cancelled while it waits for input), already settled or not, through a
 * proxy that cuts its connection; a run that waits for a person does not end
 * it; the events it yields are exactly the run's stream in the store.
 */
import { randomUUID } from 'node:crypto';
import type { StreamedEvent } from '@agent-ledger/client';
import { AgentLedgerClient, TERMINAL_RUN_EVENT_TYPES } from '@agent-ledger/client';
import { TERMINAL_RUN_EVENT_TYPES as DOMAIN_TERMINAL_RUN_EVENT_TYPES } from '@agent-ledger/domain';
import { scaled } from '../support/time-scale';
import type { ClientTestService } from './support/client-test-service';
import { conforms, startClientTestService } from './support/client-test-service';
import type { DroppingProxy } from './support/dropping-proxy';
import { startDroppingProxy } from './support/dropping-proxy';

describe('AgentLedgerClient.followRun against the real service', () => {
  jest.setTimeout(scaled(60_000));
  let service: ClientTestService;
  let client: AgentLedgerClient;
  const proxies: DroppingProxy[] = [];

  beforeAll(async () => {
    service = await startClientTestService();
    client = new AgentLedgerClient({ baseUrl: service.baseUrl, apiKey: service.admin.key });
  });

  afterAll(async () => {
    for (const proxy of proxies) await proxy.close();
    await service?.close();
  });

  async function proxied(cuts: readonly number[] = []): Promise<{ proxy: DroppingProxy; client: AgentLedgerClient }> {
    const proxy = await startDroppingProxy(service.baseUrl, cuts);
    proxies.push(proxy);
    return { proxy, client: new AgentLedgerClient({ baseUrl: proxy.baseUrl, apiKey: service.admin.key }) };
  }

  /** The run's stream in the store: [position, revision, type] of each event. */
  async function storedStream(runId: string): Promise<Array<[string, number, string]>> {
    return (await service.runEvents()).filter((event) => event.streamName === `run-${runId}`).map((event) => [String(event.position), Number(event.revision), event.type]);
  }

  /**
   * Every event of the iteration, to its end. A deadline (scaled) aborts it
   * if it does not end by itself: the signal ends it quietly, so the caller
   * checks `endedByItself`.
   */
  async function followToTheEnd(iterator: (signal: AbortSignal) => AsyncIterableIterator<StreamedEvent>): Promise<{ events: StreamedEvent[]; endedByItself: boolean }> {
    const deadline = AbortSignal.timeout(scaled(20_000));
    const events: StreamedEvent[] = [];
    for await (const event of iterator(deadline)) events.push(conforms('StreamedEvent', event));
    return { events, endedByItself: !deadline.aborted };
  }

  /** Takes events from `iterator` until one of type `type` (included). */
  async function until(iterator: AsyncIterableIterator<StreamedEvent>, type: string): Promise<StreamedEvent[]> {
    const events: StreamedEvent[] = [];
    for (;;) {
      const next = await iterator.next();
      if (next.done === true) throw new Error(`The iteration ended before ${type}, after ${events.map((event) => event.type).join(', ')}`);
      events.push(next.value);
      if (next.value.type === type) return events;
    }
  }

  /** Polls until the proxy has seen the client close the connection, or fails after a deadline (scaled). */
  async function closedByTheClient(proxy: DroppingProxy): Promise<void> {
    const deadline = Date.now() + scaled(5_000);
    const streams = () => proxy.requests.filter((request) => request.path.includes('/events'));
    while (!streams().every((request) => request.closed)) {
      if (Date.now() > deadline) throw new Error(`The event stream's connection is still open: ${JSON.stringify(streams())}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  it("knows the service's terminal event types", () => {
    expect([...TERMINAL_RUN_EVENT_TYPES].sort()).toEqual([...DOMAIN_TERMINAL_RUN_EVENT_TYPES].sort());
  });

  it('a queued run, through a proxy that cuts the stream twice: exactly its stream, ending after RunCompleted, the connection closed', async () => {
    const { runId } = await client.startRun({ agent: 'writer', input: 'write it', runId: `follow-${randomUUID()}` });
    const { proxy, client: cutClient } = await proxied([400, 700]);
    const { events, endedByItself } = await followToTheEnd((signal) => cutClient.followRun(runId, { signal, reconnect: { initialDelayMs: 5 } }));
    expect(endedByItself).toBe(true);
    expect(events.at(-1)).toMatchObject({ type: 'RunCompleted', streamName: `run-${runId}` });
    expect(events.map((event) => [event.position, event.revision, event.type])).toEqual(await storedStream(runId));
    expect(proxy.requests.filter((request) => request.cut)).toHaveLength(2);
    await closedByTheClient(proxy);
  });

  it('a run already settled: its whole history, then the end', async () => {
    const started = await client.startRun({ agent: 'clock', input: 'what time is it?', mode: 'interactive' });
    expect(started.run.status).toBe('COMPLETED');
    const { proxy, client: viaProxy } = await proxied();
    const { events, endedByItself } = await followToTheEnd((signal) => viaProxy.followRun(started.runId, { signal }));
    expect(endedByItself).toBe(true);
    expect(events.map((event) => event.type)).toEqual(['RunRequested', 'RunClaimed', 'StepStarted', 'ModelResponded', 'StepStarted', 'ToolExecuted', 'StepStarted', 'ModelResponded', 'RunCompleted']);
    expect(events.map((event) => [event.position, event.revision, event.type])).toEqual(await storedStream(started.runId));
    await closedByTheClient(proxy);
  });

  it('a run waiting for approval does not end it; the denial that fails the run does, after RunFailed', async () => {
    const started = await client.startRun({ agent: 'approver', input: 'append', mode: 'interactive' });
    expect(started.run.status).toBe('WAITING_FOR_APPROVAL');
    const iterator = client.followRun(started.runId);
    const history = await until(iterator, 'ApprovalRequested');
    let settledEarly: IteratorResult<StreamedEvent> | null = null;
    const pending = iterator.next().then((result) => (settledEarly = result));
    // A round trip to the service while the run waits: an iteration that ended at the wait would have said so by now.
    expect((await client.waitForSettled(started.runId)).status).toBe('WAITING_FOR_APPROVAL');
    expect(settledEarly).toBeNull();
    await client.deny(started.runId, { reason: 'not this file' });
    const rest: StreamedEvent[] = [(await pending).value as StreamedEvent];
    const deadline = AbortSignal.timeout(scaled(20_000));
    deadline.addEventListener('abort', () => void iterator.return?.());
    for await (const event of { [Symbol.asyncIterator]: () => iterator }) rest.push(event);
    expect(deadline.aborted).toBe(false);
    expect(rest[0]?.type).toBe('ApprovalDenied');
    expect(rest.at(-1)).toMatchObject({ type: 'RunFailed', data: expect.objectContaining({ reason: 'APPROVAL_DENIED' }) });
    expect([...history, ...rest].map((event) => [event.position, event.revision, event.type])).toEqual(await storedStream(started.runId));
  });

  it('a run waiting for input, cancelled: the iteration ends after RunCancelled', async () => {
    const started = await client.startRun({ agent: 'asker', input: 'ask me', mode: 'interactive' });
    expect(started.run.status).toBe('WAITING_FOR_INPUT');
    const iterator = client.followRun(started.runId);
    await until(iterator, 'InputRequested');
    let settledEarly: IteratorResult<StreamedEvent> | null = null;
    const pending = iterator.next().then((result) => (settledEarly = result));
    // A round trip to the service while the run waits (the read model, which follows the store by a few ms, shows the wait).
    expect((await client.waitForSettled(started.runId)).status).toBe('WAITING_FOR_INPUT');
    expect(settledEarly).toBeNull();
    await client.cancelRun(started.runId, { reason: 'not needed' });
    const types = [((await pending).value as StreamedEvent).type];
    for await (const event of { [Symbol.asyncIterator]: () => iterator }) types.push(event.type);
    expect(types).toEqual(['CancelRequested', 'RunCancelled']);
  });

  it('the signal ends it quietly while the run waits, and closes the connection', async () => {
    const started = await client.startRun({ agent: 'approver', input: 'append', mode: 'interactive' });
    const { proxy, client: viaProxy } = await proxied();
    const controller = new AbortController();
    const types: string[] = [];
    for await (const event of viaProxy.followRun(started.runId, { signal: controller.signal })) {
      types.push(event.type);
      if (event.type === 'ApprovalRequested') controller.abort();
    }
    expect(types.at(-1)).toBe('ApprovalRequested');
    await closedByTheClient(proxy);
    expect((await client.waitForSettled(started.runId)).status).toBe('WAITING_FOR_APPROVAL');
  });

  it('a run that does not exist: 404 RUN_NOT_FOUND at once', async () => {
    const { proxy, client: viaProxy } = await proxied();
    await expect(followToTheEnd((signal) => viaProxy.followRun(`missing-${randomUUID()}`, { signal }))).rejects.toMatchObject({
      name: 'AgentLedgerApiError',
      status: 404,
      code: 'RUN_NOT_FOUND',
    });
    expect(proxy.requests).toHaveLength(1);
  });
});
