import type { RunEvent } from '@agent-ledger/domain';
import { isTerminalRunEvent } from '@agent-ledger/domain';
import { writeExecutedWithoutAudit } from '@agent-ledger/runtime/testing';
import type { RuntimeHarness, TestAgent } from '@agent-ledger/runtime/testing';
import { eventually } from '@agent-ledger/runtime/testing';
import { ALICE } from '@agent-ledger/projections/testing';

const SECOND = 1000;
const call = (tool: string, value = 'x') => ({ tool, arguments: { value } });
const failing = (status: number) => ({ respond: () => Promise.reject(Object.assign(new Error(`HTTP ${status}`), { status })) });

/** The agents of the mixed workload. */
export const WORKLOAD_AGENTS: TestAgent[] = [
  { name: 'putter', script: [{ toolCalls: [call('test.read'), call('test.put')] }, { final: 'put it' }] },
  { name: 'appender', script: [{ toolCalls: [call('test.read'), call('test.append')] }, { final: 'appended' }] },
  { name: 'two-rounds', script: [{ toolCalls: [call('test.read', 'a')] }, { toolCalls: [call('test.put', 'b')] }, { final: 'done' }] },
  { name: 'reader', script: [{ toolCalls: [call('test.read')] }, { final: 'read it' }] },
  { name: 'flaky', script: [], provider: failing(503) },
];

/** The runs of the mixed workload, by what happened to them. */
export interface MixedWorkload {
  /** Interactive, completed (a read and an idempotent write, all audited). */
  readonly completed: string;
  /** Interactive, its non-idempotent write's audit could not be stored: `AUDIT_PERSISTENCE_FAILED`; the saga later records the gap (run already settled). */
  readonly failedClosed: string;
  /** Queued, reaped mid idempotent write, requeued with the write in flight, retried with the same key and completed. */
  readonly retriedAfterReap: string;
  /** Queued, reaped mid non-idempotent write: `WRITE_INTERRUPTED`. */
  readonly reapedMidWrite: string;
  /** Queued, cancelled before any worker took it. */
  readonly cancelled: string;
  /** Queued, its model failing with 503: requeued three times, then `RETRIES_EXHAUSTED`. */
  readonly retriesExhausted: string;
  /** Queued, its write executed without audit by a crashed segment: the saga fails it `AUDIT_MISSING`. */
  readonly auditMissing: string;
  /** Every run id. */
  readonly all: readonly string[];
}

/**
 * Runs a mixed workload (start the harness with `policy: { leaseSeconds: 10 }`) with the real engine (workers driven one segment at a
 * time, the reaper and the audit-gap saga by hand, a manual clock), on the
 * harness's real stores. Every run ends settled.
 */
export async function runMixedWorkload(rt: RuntimeHarness, prefix = 'w'): Promise<MixedWorkload> {
  const completed = (await rt.runs.runInteractive({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'putter', input: 'put', runId: `${prefix}-completed` })).runId;

  const undo = rt.breakAuditStore();
  const failedClosed = (await rt.runs.runInteractive({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'appender', input: 'append', runId: `${prefix}-failed-closed` })).runId;
  undo();

  const putGate = rt.behaviour.blockNext('test.put');
  const retriedAfterReap = await rt.runs.enqueue({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'two-rounds', input: 'go', runId: `${prefix}-retried` });
  const firstSegment = runWhenDue(rt, retriedAfterReap);
  await putGate.reached;
  rt.clock.advance(121 * SECOND);
  await eventually(async () => ((await rt.reaper.reapOnce()).requeued.includes(retriedAfterReap) ? true : undefined), 5000, 'the reap');
  putGate.release();
  await firstSegment;
  await runWhenDue(rt, retriedAfterReap);

  const appendGate = rt.behaviour.blockNext('test.append');
  const reapedMidWrite = await rt.runs.enqueue({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'appender', input: 'go', runId: `${prefix}-reaped` });
  const doomed = runWhenDue(rt, reapedMidWrite);
  await appendGate.reached;
  rt.clock.advance(121 * SECOND);
  await eventually(async () => ((await rt.reaper.reapOnce()).failed.includes(reapedMidWrite) ? true : undefined), 5000, 'the reap');
  appendGate.release();
  await doomed;

  const cancelled = await rt.runs.enqueue({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'reader', input: 'go', runId: `${prefix}-cancelled` });
  await rt.runs.cancel(cancelled, ALICE, 'changed my mind');

  const retriesExhausted = await rt.runs.enqueue({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'flaky', input: 'go', runId: `${prefix}-flaky` });
  for (let attempt = 0; attempt < 4; attempt++) {
    await runWhenDue(rt, retriesExhausted);
    rt.clock.advance(121 * SECOND);
  }

  const auditMissing = (
    await writeExecutedWithoutAudit(rt, { agent: 'appender', tool: { name: 'test.append', effect: 'NON_IDEMPOTENT_WRITE', operationDeadlineSeconds: 60 }, runId: `${prefix}-audit-missing` })
  ).runId;
  await eventually(() => (rt.saga.pendingCount() >= 2 ? true : undefined), 10_000, 'the saga to see the two unaudited writes');
  rt.clock.advance(3600 * SECOND);
  await rt.saga.checkDeadlines();

  const all = [completed, failedClosed, retriedAfterReap, reapedMidWrite, cancelled, retriesExhausted, auditMissing];
  for (const runId of all) {
    await eventually(async () => ((await rt.runEvents(runId)).some(isTerminalRunEvent) ? true : undefined), 10_000, `${runId} to settle`);
  }
  return { completed, failedClosed, retriedAfterReap, reapedMidWrite, cancelled, retriesExhausted, auditMissing, all };
}

/** Waits until the run is due in the queue index, then runs one segment of it. */
async function runWhenDue(rt: RuntimeHarness, runId: string): Promise<void> {
  await eventually(() => (rt.index.dueQueued(rt.clock.now()).includes(runId) ? true : undefined), 10_000, `${runId} to be due`);
  const ran = await rt.workers.runOnce();
  if (ran !== runId) throw new Error(`Expected a segment of ${runId}, ran ${String(ran)}`);
}

/** The terminal event of a run's events. */
export function terminalOf(events: readonly RunEvent[]): RunEvent | undefined {
  return events.find(isTerminalRunEvent);
}
