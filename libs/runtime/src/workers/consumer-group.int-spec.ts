import { randomUUID } from 'node:crypto';
import type { RunEvent } from '@agent-ledger/domain';
import { ConsumerGroupMismatchError, ExpectedRevision, hasConsumerGroups } from '@agent-ledger/event-store';
import type { RuntimeHarness, TestAgent } from '../testing/runtime-harness';
import { eventually, startRuntime } from '../testing/runtime-harness';
import { scaled } from '../../../../test/support/time-scale';

/*
 * On EventStoreDB the workers' consumer group offers each runnable run to one
 * worker process: two "processes" (harnesses with their own clients, on the
 * same servers) share the runs without racing for them; a back-off is timed
 * by the process that was offered the requeue; a run the group never offered
 * is claimed from the queue index once it waited past the sweep delay.
 */
const call = (tool: string, value = 'x') => ({ tool, arguments: { value } });
const AGENTS: TestAgent[] = [
  { name: 'putter', script: [{ toolCalls: [call('test.read'), call('test.put')] }, { final: 'put it' }] },
  { name: 'flaky', script: [], provider: { respond: () => Promise.reject(Object.assign(new Error('HTTP 503'), { status: 503 })) } },
];
jest.setTimeout(scaled(60_000));

const RUNS = 24;
const claims = (events: readonly RunEvent[]) => events.filter((event) => event.type === 'RunClaimed');
const settled = (events: readonly RunEvent[]) => ['RunCompleted', 'RunFailed', 'RunCancelled'].includes(events.at(-1)?.type ?? '');

describe('the workers of several processes on EventStoreDB, fed by a consumer group', () => {
  const open: RuntimeHarness[] = [];
  const start = async (options: Parameters<typeof startRuntime>[0]): Promise<RuntimeHarness> => {
    const rt = await startRuntime(options);
    open.push(rt);
    return rt;
  };

  afterEach(async () => {
    for (const rt of open.splice(0).reverse()) await rt.close();
  });

  it('offers each queued run to one process: every run is claimed once, no claim is lost, both processes work', async () => {
    const group = `workers-${randomUUID()}`;
    const first = await start({ store: 'eventstoredb', agents: AGENTS, execution: { workers: { concurrency: 2, consumerGroup: { name: group } } } });
    const second = await start({ store: 'eventstoredb', agents: AGENTS, sharedWith: first, execution: { workers: { concurrency: 2, consumerGroup: { name: group } } } });
    expect(hasConsumerGroups(first.runStore)).toBe(true);
    expect([first.workers.consumerGroup, second.workers.consumerGroup]).toEqual([group, group]);
    const runIds: string[] = [];
    for (let i = 0; i < RUNS; i++) runIds.push(await first.runs.enqueue({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'putter', input: `run ${i}` }));
    for (const runId of runIds) await eventually(async () => (settled(await first.runEvents(runId)) ? true : undefined), scaled(20_000), `run ${runId} to settle`);
    const histories = await Promise.all(runIds.map((runId) => first.runEvents(runId)));
    expect(histories.map((events) => [events.at(-1)?.type, claims(events).length])).toEqual(runIds.map(() => ['RunCompleted', 1]));
    const metrics = [first.metrics, second.metrics];
    expect(metrics.map((m) => m.get('claimsLost'))).toEqual([0, 0]);
    expect(metrics.map((m) => m.get('claimsSwept'))).toEqual([0, 0]);
    expect(metrics.reduce((sum, m) => sum + m.get('runOffers'), 0)).toBe(RUNS);
    expect(metrics.every((m) => m.get('runOffers') > 0)).toBe(true);
  });

  it('times a back-off in the process that was offered the requeue, and claims the run again when it ends', async () => {
    const rt = await start({
      store: 'eventstoredb',
      agents: AGENTS,
      execution: { workers: { concurrency: 1, consumerGroup: { name: `workers-${randomUUID()}` } }, policy: { backoffBaseSeconds: 1, backoffCapSeconds: 1 } },
    });
    const runId = await rt.runs.enqueue({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'flaky', input: 'go' });
    const requeued = await eventually(async () => (await rt.runEvents(runId)).find((event) => event.type === 'RunRequeued'), scaled(10_000), 'the requeue');
    expect(requeued.data).toMatchObject({ cause: 'failure', notBefore: expect.any(Number) });
    rt.clock.advance(1_000); // the manual clock past the back-off; the timer itself waits the real second
    await eventually(async () => (claims(await rt.runEvents(runId)).length >= 2 ? true : undefined), scaled(10_000), 'the second claim');
    expect(rt.metrics.get('claimsSwept')).toBe(0);
  });

  it('claims a run the group never offered (queued before the group existed) once it waited past the sweep delay', async () => {
    const before = await start({ store: 'eventstoredb', agents: AGENTS, execution: { workers: { concurrency: 0, consumerGroup: false } } });
    const runId = await before.runs.enqueue({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'putter', input: 'early' });
    // The group starts at the last record of the store, included: make it another stream's.
    await before.runStore.append(`other-${randomUUID()}`, [{ id: randomUUID(), type: 'Unrelated', data: {} }], { expectedRevision: ExpectedRevision.NO_STREAM });
    const rt = await start({
      store: 'eventstoredb',
      agents: AGENTS,
      sharedWith: before,
      execution: { workers: { concurrency: 1, consumerGroup: { name: `workers-${randomUUID()}`, sweepAfterMs: 5_000 } } },
    });
    await eventually(async () => (rt.index.run(runId) !== undefined ? true : undefined), scaled(10_000), 'the queue index to see the run');
    expect(rt.metrics.get('claimsSwept')).toBe(0);
    rt.clock.advance(5_000); // past the sweep delay
    await eventually(async () => ((await rt.runEvents(runId)).at(-1)?.type === 'RunCompleted' ? true : undefined), scaled(10_000), 'the swept run to complete');
    expect(rt.metrics.get('claimsSwept')).toBe(1);
    expect(rt.metrics.get('runOffers')).toBe(0);
  });

  it('does not offer an interactive run to the workers: its caller claims it', async () => {
    const rt = await start({ store: 'eventstoredb', agents: AGENTS, execution: { workers: { concurrency: 1, consumerGroup: { name: `workers-${randomUUID()}` } } } });
    const done = await rt.runs.runInteractive({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'putter', input: 'now' });
    expect((await rt.runEvents(done.runId)).at(-1)?.type).toBe('RunCompleted');
    const queued = await rt.runs.enqueue({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'putter', input: 'later' });
    await eventually(async () => ((await rt.runEvents(queued)).at(-1)?.type === 'RunCompleted' ? true : undefined), scaled(10_000), 'the queued run');
    // Offers are taken in order: once the queued run completed, the interactive run's request was seen and set aside.
    expect([rt.metrics.get('runOffers'), rt.metrics.get('claimsLost')]).toEqual([1, 0]);
  });

  it('refuses to start when the group exists with other settings, naming the setting', async () => {
    const group = `workers-${randomUUID()}`;
    const first = await start({ store: 'eventstoredb', agents: AGENTS, execution: { workers: { concurrency: 0, consumerGroup: { name: group } } } });
    const refused = startRuntime({ store: 'eventstoredb', agents: AGENTS, sharedWith: first, execution: { workers: { concurrency: 0, consumerGroup: { name: group, maxRetryCount: 3 } } } });
    await expect(refused).rejects.toBeInstanceOf(ConsumerGroupMismatchError);
    await expect(refused).rejects.toThrow(/maxRetryCount 10, but this process is configured with 3/);
  });
});
