import type { RunEvent } from '@agent-ledger/domain';
import { busPrincipal, isTerminalRunEvent } from '@agent-ledger/domain';
import type { RuntimeHarness, TestAgent } from '../testing/runtime-harness';
import { eventually, startRuntime, stateOf } from '../testing/runtime-harness';
import { scaled } from '../../../../test/support/time-scale';
import { ModelProviderHttpError } from '../models/model-provider-http.error';

const SECOND = 1000;
const RUNS = Number(process.env.RACE_RUNS ?? 100);

const call = (tool: string, value = 'x') => ({ tool, arguments: { value } });
const AGENTS: TestAgent[] = [
  { name: 'reader', script: [{ toolCalls: [call('test.read')] }, { final: 'read it' }] },
  { name: 'putter', script: [{ toolCalls: [call('test.read'), call('test.put')] }, { final: 'put it' }] },
  { name: 'appender', script: [{ toolCalls: [call('test.read'), call('test.append')] }, { final: 'appended' }] },
  { name: 'two-rounds', script: [{ toolCalls: [call('test.read', 'a')] }, { toolCalls: [call('test.put', 'b')] }, { final: 'done' }] },
  { name: 'ghost-caller', script: [{ toolCalls: [call('test.delete')] }, { final: 'tried' }] },
  { name: 'short-script', script: [{ toolCalls: [call('test.read')] }] },
  { name: 'misquoting', script: [{ toolCalls: [call('test.read')] }, { final: 'It read {{result:test.read/nothing}}.' }] },
  { name: 'chatty', script: [{ toolCalls: [call('test.read')] }, { toolCalls: [call('test.read')] }, { toolCalls: [call('test.read')] }], maxIterations: 3 },
];
const failing = (status: number) => ({
  respond: () => Promise.reject(Object.assign(new Error(`HTTP ${status}`), { status })),
});
AGENTS.push({ name: 'flaky', script: [], provider: failing(503) }, { name: 'unauthorised', script: [], provider: failing(401) });
// A model server that answers 429 with Retry-After: 90 (seconds), as the HTTP providers report it.
AGENTS.push({ name: 'throttled', script: [], provider: { respond: () => Promise.reject(new ModelProviderHttpError(429, 'http://model.test/v1/chat/completions', '', 90 * SECOND)) } });
const types = (events: readonly RunEvent[]) => events.map((e) => e.type);
const terminal = (events: readonly RunEvent[]) => events.filter(isTerminalRunEvent);

const STORES = ['sqlite', 'eventstoredb'] as const;

describe.each(STORES)('execution engine on %s (real stores, real handlers)', (store) => {
  let rt: RuntimeHarness;

  afterEach(async () => {
    await rt?.close();
  });

  describe('interactive runs', () => {
    beforeEach(async () => {
      rt = await startRuntime({ store, agents: AGENTS });
    });

    it('records every step with its audit and completes', async () => {
      const { runId, state } = await rt.runs.runInteractive({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'putter', input: 'put x' });
      expect(state.status).toBe('COMPLETED');
      const events = await rt.runEvents(runId);
      expect(types(events)).toEqual([
        'RunRequested',
        'RunClaimed',
        'StepStarted',
        'ModelResponded',
        'StepStarted',
        'ToolExecuted',
        // The test agent pre-approves its write (an operator's decision), recorded right before its fence.
        'ToolCallPreApproved',
        'StepStarted',
        'ToolExecuted',
        'StepStarted',
        'ModelResponded',
        'RunCompleted',
      ]);
      const audits = await rt.auditEvents(runId);
      // The chain opens with who started the run (a statement, no step), then one record a step.
      expect(audits[0]).toMatchObject({ type: 'RunStartRecorded', data: { runId, requestedBy: { kind: 'bus', id: 'test' }, sequence: 1 } });
      expect(audits.slice(1).map((e) => (e.data as { stepId: string }).stepId)).toEqual([
        `${runId}/r0/llm`,
        `${runId}/r0/t0`,
        `${runId}/r0/t1`,
        `${runId}/r1/llm`,
      ]);
      expect(rt.behaviour.executions.map((e) => e.tool)).toEqual(['test.read', 'test.put']);
      expect(rt.behaviour.executions[1]?.idempotencyKey).toBe(`agent-ledger:${runId}/r0/t1`);
    });

    it('fails closed, never retried, when a write\'s audit cannot be stored', async () => {
      const unlock = rt.breakAuditStore();
      const { runId, state } = await rt.runs.runInteractive({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'appender', input: 'append x' });
      unlock();
      expect(state.status).toBe('FAILED');
      expect(state.settlement?.reason).toBe('AUDIT_PERSISTENCE_FAILED');
      const events = await rt.runEvents(runId);
      expect(terminal(events)).toHaveLength(1);
      expect(terminal(events)[0]).toMatchObject({ data: { reason: 'AUDIT_PERSISTENCE_FAILED', failure: { failureClass: 'unknown' } } });
      // The read before the write went on (fail-soft), the write ran once, nothing after it.
      expect(rt.behaviour.count('test.append')).toBe(1);
      expect(types(events).slice(-3)).toEqual(['StepStarted', 'ToolExecuted', 'RunFailed']);
      expect(rt.metrics.get('auditFailClosed')).toBe(1);
      expect(rt.metrics.get('auditFailSoft')).toBeGreaterThanOrEqual(2);
    });

    it('goes on when a read-only step\'s audit cannot be stored', async () => {
      const unlock = rt.breakAuditStore();
      const { state } = await rt.runs.runInteractive({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'reader', input: 'read' });
      unlock();
      expect(state.status).toBe('COMPLETED');
      expect(rt.metrics.get('auditFailSoft')).toBe(3);
      expect(rt.metrics.get('auditFailClosed')).toBe(0);
    });

    it('settles a failing interactive run FAILED at once, never retried, even for a retryable failure', async () => {
      const { runId, state } = await rt.runs.runInteractive({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'flaky', input: 'go' });
      expect(state.settlement).toEqual({ status: 'FAILED', reason: 'PROVIDER_FAILED', deadLettered: false });
      const events = await rt.runEvents(runId);
      expect(events.filter((e) => e.type === 'RunClaimed')).toHaveLength(1);
      expect(terminal(events)[0]).toMatchObject({ data: { failure: { failureClass: 'serverError' } } });
    });

    it('fails a run whose scripted model runs out of script with a configuration error naming the agent and the round, never a made-up answer', async () => {
      const { runId, state } = await rt.runs.runInteractive({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'short-script', input: 'go' });
      expect(state.settlement).toEqual({ status: 'FAILED', reason: 'PROVIDER_FAILED', deadLettered: false });
      const events = await rt.runEvents(runId);
      expect(events.filter((e) => e.type === 'RunClaimed')).toHaveLength(1);
      expect(terminal(events)[0]).toMatchObject({
        data: { failure: { failureClass: 'configuration', message: expect.stringContaining('The script of agent short-script has 1 round and was asked for round 1') } },
      });
      expect(JSON.stringify(events)).not.toContain('the run ends here');
    });

    it('fails a run whose script quotes what the run did not record (configuration, never retried), with no answer', async () => {
      const { runId, state } = await rt.runs.runInteractive({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'misquoting', input: 'go' });
      expect(state.settlement).toEqual({ status: 'FAILED', reason: 'PROVIDER_FAILED', deadLettered: false });
      const events = await rt.runEvents(runId);
      expect(events.filter((e) => e.type === 'RunClaimed')).toHaveLength(1);
      expect(terminal(events)[0]).toMatchObject({
        type: 'RunFailed',
        data: {
          failure: {
            failureClass: 'configuration',
            code: 'SCRIPT_PLACEHOLDER_UNFILLED',
            message: expect.stringContaining('The script of agent misquoting cannot fill {{result:test.read/nothing}} in round 1: the result of test.read (round 0, call 0) has nothing at /nothing'),
          },
        },
      });
      expect(JSON.stringify(events)).not.toContain('It read');
    });

    it('returns the cancelled run when a cancel lands between its request and its claim (the cancel wins; no error)', async () => {
      // The interleaving the simulation found: another caller cancels the run right before this caller claims it.
      const process = rt.processor.process.bind(rt.processor);
      const spy = jest.spyOn(rt.processor, 'process').mockImplementation(async (command, ...rest) => {
        if (command.type === 'ClaimRun' && command.data.runId === 'raced') {
          await process({ type: 'RequestCancel', data: { runId: 'raced', requestedBy: busPrincipal('someone-else') }, metadata: { now: rt.clock.now() } });
        }
        return process(command, ...rest);
      });
      try {
        const result = await rt.runs.runInteractive({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'putter', input: 'put x', runId: 'raced' });
        expect(result).toMatchObject({ runId: 'raced', state: { status: 'CANCELLED' }, segment: 'settled' });
      } finally {
        spy.mockRestore();
      }
      expect(types(await rt.runEvents('raced'))).toEqual(['RunRequested', 'CancelRequested', 'RunCancelled']);
      expect(rt.behaviour.executions).toEqual([]);
    });

    it('records a tool that throws as a failed execution, shown to the model, and goes on', async () => {
      rt.behaviour.failWith = Object.assign(new Error('disk gone'), { code: 'EIO' });
      const { state } = await rt.runs.runInteractive({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'reader', input: 'read' });
      expect(state.status).toBe('COMPLETED');
      expect([...state.steps.values()].find((s) => s.kind === 'tool')).toMatchObject({ outcome: 'failed', error: { message: 'disk gone' } });
    });

    it('records a call of a tool that no longer exists as NON_IDEMPOTENT_WRITE, and never executes it', async () => {
      const { runId, state } = await rt.runs.runInteractive({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'ghost-caller', input: 'go' });
      expect(state.status).toBe('COMPLETED');
      const started = (await rt.runEvents(runId)).find((e) => e.type === 'StepStarted' && e.data.kind === 'tool');
      expect(started).toMatchObject({ data: { toolName: 'test.delete', effect: 'NON_IDEMPOTENT_WRITE' } });
      const executed = (await rt.runEvents(runId)).find((e) => e.type === 'ToolExecuted');
      expect(executed).toMatchObject({ data: { outcome: 'failed', error: { code: 'TOOL_NOT_OFFERED' } } });
      expect(rt.behaviour.executions).toHaveLength(0);
    });

    it('ends a run that uses all its rounds with MAX_ITERATIONS', async () => {
      const { state } = await rt.runs.runInteractive({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'chatty', input: 'talk' });
      expect(state.settlement).toEqual({ status: 'FAILED', reason: 'MAX_ITERATIONS', deadLettered: false });
      expect(rt.behaviour.count('test.read')).toBe(3);
    });
  });

  describe('queued runs, executed by workers', () => {
    beforeEach(async () => {
      rt = await startRuntime({
        store,
        agents: AGENTS,
        execution: { workers: { concurrency: 2 }, policy: { leaseSeconds: 10 } },
      });
    });

    it('are executed by a worker and settle once', async () => {
      const runId = await rt.runs.enqueue({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'two-rounds', input: 'go' });
      const events = await settled(rt, runId);
      expect(terminal(events)).toEqual([expect.objectContaining({ type: 'RunCompleted' })]);
      expect(rt.behaviour.executions.map((e) => e.tool)).toEqual(['test.read', 'test.put']);
    });

    it('dead-letter a write whose audit cannot be stored (AUDIT_PERSISTENCE_FAILED), never retried', async () => {
      const unlock = rt.breakAuditStore();
      const runId = await rt.runs.enqueue({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'putter', input: 'go' });
      const events = await settled(rt, runId);
      unlock();
      expect(terminal(events)[0]).toMatchObject({ type: 'RunFailed', data: { reason: 'AUDIT_PERSISTENCE_FAILED', deadLettered: true } });
      expect(events.filter((e) => e.type === 'RunClaimed')).toHaveLength(1);
      expect(rt.behaviour.count('test.put')).toBe(1);
    });

    it('stop at the next step boundary when cancelled while running: nothing starts after it', async () => {
      const gate = rt.behaviour.blockNext('test.read');
      const runId = await rt.runs.enqueue({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'two-rounds', input: 'go' });
      await gate.reached; // round 0's read is executing
      await rt.runs.cancel(runId, busPrincipal('alice'));
      // The cancel fires the call's abort signal: the blocked tool gives up without being released.
      const events = await settled(rt, runId);
      expect(events.find((e) => e.type === 'ToolExecuted')).toMatchObject({ data: { outcome: 'failed', error: { message: 'The run was cancelled' } } });
      expect(terminal(events)).toEqual([expect.objectContaining({ type: 'RunCancelled', data: expect.objectContaining({ requestedBy: busPrincipal('alice') }) })]);
      // The call in progress got its record; the next model round never started.
      expect(types(events).slice(-3)).toEqual(['CancelRequested', 'ToolExecuted', 'RunCancelled']);
      expect(rt.behaviour.count('test.put')).toBe(0);
    });

    it('dead-letter a run reaped mid NON_IDEMPOTENT_WRITE whatever budget is left; the stale segment records nothing more', async () => {
      const gate = rt.behaviour.blockNext('test.append');
      const runId = await rt.runs.enqueue({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'appender', input: 'go' });
      await gate.reached;
      // The fence extended the lease to cover the 60 s deadline plus the 60 s margin: not reapable before.
      rt.clock.advance(119 * SECOND);
      expect((await rt.reaper.reapOnce()).failed).toEqual([]);
      rt.clock.advance(2 * SECOND);
      const report = await eventually(async () => {
        const r = await rt.reaper.reapOnce();
        return r.failed.length > 0 ? r : undefined;
      }, 5000, 'the reaper to take the run');
      expect(report.failed).toEqual([runId]);
      gate.release();
      await eventually(() => (rt.metrics.get('leaseLost') === 1 ? true : undefined), 5000, 'the stale segment to stop');
      const events = await rt.runEvents(runId);
      expect(terminal(events)).toEqual([expect.objectContaining({ type: 'RunFailed', data: expect.objectContaining({ reason: 'WRITE_INTERRUPTED', deadLettered: true }) })]);
      expect(types(events).at(-1)).toBe('RunFailed');
      expect(events.some((e) => e.type === 'ToolExecuted' && e.data.toolName === 'test.append')).toBe(false);
      expect(rt.behaviour.count('test.append')).toBe(1);
    });

    it('retry a run reaped mid IDEMPOTENT_WRITE with the same idempotency key, never re-executing completed steps', async () => {
      const gate = rt.behaviour.blockNext('test.put');
      const runId = await rt.runs.enqueue({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'two-rounds', input: 'go' });
      await gate.reached; // round 0 (read) completed; round 1's put is executing
      rt.clock.advance(121 * SECOND);
      await eventually(async () => ((await rt.reaper.reapOnce()).requeued.length > 0 ? true : undefined), 5000, 'the reap');
      // The stale segment's call returns: its record is refused and it stops. A worker takes the
      // run again at once (a stale reclaim has no backoff) and finishes it.
      gate.release();
      const events = await settled(rt, runId);
      expect(rt.metrics.get('leaseLost')).toBe(1);
      expect(terminal(await rt.runEvents(runId))).toEqual([expect.objectContaining({ type: 'RunCompleted' })]);
      const puts = rt.behaviour.executions.filter((e) => e.tool === 'test.put');
      expect(puts.map((e) => e.attempt)).toEqual([1, 2]);
      expect(new Set(puts.map((e) => e.idempotencyKey))).toEqual(new Set([`agent-ledger:${runId}/r1/t0`]));
      expect(rt.behaviour.count('test.read')).toBe(1);
      expect(events.filter((e) => e.type === 'ModelResponded' && e.data.round === 0)).toHaveLength(1);
      expect(events.filter((e) => e.type === 'ToolExecuted')).toHaveLength(2);
    });
  });

  describe('queued runs, driven one segment at a time', () => {
    beforeEach(async () => {
      rt = await startRuntime({
        store,
        agents: AGENTS,
        execution: { workers: { concurrency: 0 } },
      });
    });

    /** Runs the next due run once the queue index (which follows the store, a little behind) shows `runId` due. */
    const runNext = async (runId: string) => {
      await eventually(() => (rt.index.dueQueued(rt.clock.now()).includes(runId) ? true : undefined), 10_000, `run ${runId} due in the queue index`);
      return rt.workers.runOnce();
    };

    it('respect the backoff (30 s, 60 s, 120 s) and dead-letter with RETRIES_EXHAUSTED after 1 + 3 executions', async () => {
      const runId = await rt.runs.enqueue({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'flaky', input: 'go' });
      await eventually(() => (rt.index.counts().queued === 1 ? true : undefined));
      expect(await rt.workers.runOnce()).toBe(runId);
      for (const wait of [30, 60, 120]) {
        await eventually(async () => ((await rt.runEvents(runId)).at(-1)?.type === 'RunRequeued' ? true : undefined));
        await eventually(() => (rt.index.dueQueued(Number.MAX_SAFE_INTEGER).includes(runId) ? true : undefined));
        rt.clock.advance((wait - 1) * SECOND);
        expect(await rt.workers.runOnce()).toBeNull();
        rt.clock.advance(SECOND);
        expect(await rt.workers.runOnce()).toBe(runId);
      }
      const events = await rt.runEvents(runId);
      expect(events.filter((e) => e.type === 'RunClaimed')).toHaveLength(4);
      expect(terminal(events)).toEqual([expect.objectContaining({ type: 'RunFailed', data: expect.objectContaining({ reason: 'RETRIES_EXHAUSTED', deadLettered: true, failure: expect.objectContaining({ failureClass: 'serverError' }) }) })]);
    });

    it("wait a rate-limited model server's Retry-After (90 s) before the retry, not the 30 s backoff", async () => {
      const runId = await rt.runs.enqueue({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'throttled', input: 'go' });
      expect(await runNext(runId)).toBe(runId);
      const requeued = await eventually(async () => {
        const last = (await rt.runEvents(runId)).at(-1);
        return last?.type === 'RunRequeued' ? last : undefined;
      });
      expect(requeued.data).toMatchObject({ cause: 'failure', requeues: 1, failure: { failureClass: 'rateLimit' } });
      const { notBefore, requeuedAt } = requeued.data as { notBefore: number; requeuedAt: number };
      expect(notBefore - requeuedAt).toBe(90 * SECOND);
      await eventually(() => (rt.index.dueQueued(Number.MAX_SAFE_INTEGER).includes(runId) ? true : undefined));
      rt.clock.advance(60 * SECOND); // past the backoff, not past the server's wait
      expect(await rt.workers.runOnce()).toBeNull();
      rt.clock.advance(30 * SECOND);
      expect(await rt.workers.runOnce()).toBe(runId);
    });

    it('dead-letter a failure that is not retryable at once (NOT_RETRYABLE)', async () => {
      const runId = await rt.runs.enqueue({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'unauthorised', input: 'go' });
      expect(await runNext(runId)).toBe(runId);
      const events = await rt.runEvents(runId);
      expect(terminal(events)[0]).toMatchObject({ data: { reason: 'NOT_RETRYABLE', failure: { failureClass: 'auth' } } });
    });

    it('fail an interactive run whose caller died between its request and its claim, once a lease has passed', async () => {
      // What a caller that died right after its RunRequested leaves behind: nobody else may claim the run.
      const runId = 'orphan-1';
      await rt.processor.process({ type: 'RequestRun', data: { runId, agent: 'reader', input: 'go', mode: 'interactive', requestedBy: { kind: 'bus', id: 'test' } }, metadata: { now: rt.clock.now() } });
      await eventually(() => (rt.index.counts().queued === 1 ? true : undefined));
      expect(await rt.workers.runOnce()).toBeNull();
      expect((await rt.reaper.reapOnce()).failed).toEqual([]);
      rt.clock.advance(900 * SECOND);
      expect((await rt.reaper.reapOnce()).failed).toEqual([runId]);
      const events = await rt.runEvents(runId);
      expect(terminal(events)).toEqual([
        expect.objectContaining({ type: 'RunFailed', data: expect.objectContaining({ reason: 'NOT_RETRYABLE', deadLettered: false, failure: expect.objectContaining({ code: 'INTERACTIVE_CALLER_LOST' }) }) }),
      ]);
    });

    it('let a renewal win over a reaper that decided on an older revision', async () => {
      const runId = await rt.runs.enqueue({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'reader', input: 'go' });
      const owner = 'worker:test-host:1:race';
      const claim = await rt.processor.process({ type: 'ClaimRun', data: { runId, owner }, metadata: { now: rt.clock.now() } });
      rt.clock.advance(901 * SECOND);
      const seenByReaper = await rt.processor.load(runId); // expired, as the reaper reads it
      const renewal = await rt.processor.process({ type: 'RenewLease', data: { runId, owner, attempt: 1 }, metadata: { now: rt.clock.now() } }, claim);
      expect(renewal.decision.kind).toBe('accepted');
      const reap = await rt.processor.process({ type: 'ReapRun', data: { runId, reaper: 'reaper:test-host:2' }, metadata: { now: rt.clock.now() } }, seenByReaper);
      expect(reap.decision).toMatchObject({ kind: 'rejected', error: { code: 'RUN_NOT_REAPABLE' } });
      expect(rt.metrics.get('runCommandConflicts')).toBe(1);
      expect(stateOf(await rt.runEvents(runId)).status).toBe('RUNNING');
    });

    it('ignore a settle by a stale owner: it is told the lease is lost and nothing is appended', async () => {
      const runId = await rt.runs.enqueue({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'reader', input: 'go' });
      const stale = 'worker:test-host:1:old';
      await rt.processor.process({ type: 'ClaimRun', data: { runId, owner: stale }, metadata: { now: rt.clock.now() } });
      rt.clock.advance(901 * SECOND);
      await rt.processor.process({ type: 'ReapRun', data: { runId, reaper: 'reaper:h:1' }, metadata: { now: rt.clock.now() } });
      const before = (await rt.runEvents(runId)).length;
      const settle = await rt.processor.process({ type: 'CompleteRun', data: { runId, owner: stale, attempt: 1, finalAnswer: 'late' }, metadata: { now: rt.clock.now() } });
      const renew = await rt.processor.process({ type: 'RenewLease', data: { runId, owner: stale, attempt: 1 }, metadata: { now: rt.clock.now() } });
      expect(settle.decision.kind).toBe('leaseLost');
      expect(renew.decision.kind).toBe('leaseLost');
      expect(await rt.runEvents(runId)).toHaveLength(before);
    });
  });

  describe('two workers on one store', () => {
    let other: RuntimeHarness;

    afterEach(async () => {
      await other?.close();
    });

    it(`execute each of ${RUNS} runs once and settle each exactly once`, async () => {
      rt = await startRuntime({ store, agents: AGENTS, execution: { workers: { concurrency: 0 } } });
      other = await startRuntime({ store, agents: AGENTS, sharedWith: rt, execution: { workers: { concurrency: 0 } } });
      const runIds: string[] = [];
      for (let i = 0; i < RUNS; i++) runIds.push(await rt.runs.enqueue({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'reader', input: `task ${i}`, runId: `race-${i}` }));
      rt.workers.start();
      other.workers.start();
      await eventually(async () => {
        const counts = await Promise.all(runIds.map(async (id) => terminal(await rt.runEvents(id)).length));
        return counts.every((c) => c === 1) ? counts : undefined;
      }, 60_000, `${RUNS} runs to settle`);
      for (const runId of runIds) {
        const events = await rt.runEvents(runId);
        expect(terminal(events)).toEqual([expect.objectContaining({ type: 'RunCompleted' })]);
        expect(events.filter((e) => e.type === 'RunClaimed')).toHaveLength(1);
      }
      const perRun = new Map<string, number>();
      for (const e of rt.behaviour.executions) perRun.set(e.runId, (perRun.get(e.runId) ?? 0) + 1);
      expect([...perRun.values()].every((n) => n === 1)).toBe(true);
      expect(perRun.size).toBe(RUNS);
    }, scaled(90_000));
  });
});

/** Waits until the run has a terminal event, then returns its events. */
function settled(rt: RuntimeHarness, runId: string): Promise<RunEvent[]> {
  return eventually(async () => {
    const events = await rt.runEvents(runId);
    return terminal(events).length > 0 ? events : undefined;
  }, 10_000, `run ${runId} to settle`);
}
