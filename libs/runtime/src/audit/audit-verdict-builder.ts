import type { StoredAuditRecord, TerminationReason, ToolEffect } from '@agent-ledger/domain';
import { AuditChainChecker, DEAD_LETTER_REASONS, decodeAuditEvent, decodeRunEvent, isAuditEventType, isWrite, StreamCategory } from '@agent-ledger/domain';
import type { RecordedEvent } from '@agent-ledger/event-store';
import type { AuditStoreVerdict, StoreWrite, StoreWriteWithoutAudit, UnauditedWriteAllowance } from './audit-store-verdict';
import type { RunChainBreak } from './audit-store-verdict';

/** The run-store event types the verdict reads (the rest of a run's history does not change it). */
export const VERDICT_RUN_EVENT_TYPES: readonly string[] = ['RunRequested', 'ToolExecuted', 'RunCompleted', 'RunFailed', 'RunCancelled'];

/** Where a run's audit stream stood when it was last read: what a checkpoint re-checks. */
export interface AuditHead {
  readonly runId: string;
  /** Revision of the last event read from `audit-<runId>`. */
  readonly revision: bigint;
  readonly eventId: string;
  /** The `hash` of that record (null if it carried none). */
  readonly hash: string | null;
}

interface ExecutedWrite {
  readonly toolName: string;
  readonly effect: ToolEffect;
  readonly attempt: number;
  readonly executedAt: number;
}

interface RunState {
  known: boolean;
  end: { readonly reason: TerminationReason; readonly inFlightStepId: string | null } | null;
  writes: Map<string, ExecutedWrite> | null;
  checker: AuditChainChecker | null;
  auditRecords: number;
  head: AuditHead | null;
  /** Attempt of the `AuditRecorded` of each step that has one (write or not: the run side says which steps are writes). */
  audits: Map<string, number> | null;
}

/**
 * Accumulates the facts of an {@link AuditStoreVerdict} from events of the
 * run store (`run-<runId>` streams) and of the audit store (`audit-<runId>`),
 * fed in each store's order; the two stores may be fed in any interleaving.
 * Memory grows with the runs and their writes, not with the events.
 */
export class AuditVerdictBuilder {
  private readonly runs = new Map<string, RunState>();
  private readonly breaks: RunChainBreak[] = [];
  private auditRecords = 0;

  /** Feeds an event of a run stream (other types than {@link VERDICT_RUN_EVENT_TYPES} are ignored, and not decoded). */
  addRunEvent(event: RecordedEvent): void {
    const runId = idOf(event.streamName, StreamCategory.RUN);
    if (runId === null) return;
    const run = this.run(runId);
    run.known = true;
    if (!VERDICT_RUN_EVENT_TYPES.includes(event.type)) return;
    const decoded = decodeRunEvent(event);
    switch (decoded?.type) {
      case 'ToolExecuted': {
        const { stepId, toolName, effect, attempt, executedAt } = decoded.data;
        if (!isWrite(effect)) return;
        run.writes ??= new Map();
        run.writes.set(stepId, { toolName, effect, attempt, executedAt });
        return;
      }
      case 'RunCompleted':
        run.end = { reason: 'COMPLETED', inFlightStepId: null };
        return;
      case 'RunFailed':
        run.end = { reason: decoded.data.reason, inFlightStepId: decoded.data.inFlightWrite?.stepId ?? null };
        return;
      case 'RunCancelled':
        run.end = { reason: 'CANCELLED', inFlightStepId: decoded.data.inFlightWrite?.stepId ?? null };
        return;
      default:
        return;
    }
  }

  /**
   * Feeds an event of an audit stream: every audit event type is a link of
   * the chain, checked on its payload as stored, never upcast (the hash
   * covers the stored payload), whatever its type; an `AuditRecorded`
   * (decoded) also answers for its step.
   */
  addAuditEvent(event: RecordedEvent): void {
    const runId = idOf(event.streamName, StreamCategory.AUDIT);
    if (runId === null) return;
    const run = this.run(runId);
    const stored = event.data;
    run.head = { runId, revision: event.revision, eventId: event.id, hash: typeof stored['hash'] === 'string' ? stored['hash'] : null };
    if (!isAuditEventType(event.type)) return;
    this.auditRecords++;
    run.auditRecords++;
    run.checker ??= new AuditChainChecker();
    // The chain is checked on the payload as stored: an upcast payload would not give its hash.
    for (const found of run.checker.add(stored as unknown as StoredAuditRecord)) this.breaks.push({ runId, ...found });
    const decoded = event.type === 'AuditRecorded' ? decodeAuditEvent(event) : null;
    if (decoded?.type === 'AuditRecorded') {
      run.audits ??= new Map();
      if (!run.audits.has(decoded.data.stepId)) run.audits.set(decoded.data.stepId, decoded.data.attempt);
    }
  }

  /** The head of every audit stream read so far. */
  auditHeads(): AuditHead[] {
    const heads: AuditHead[] = [];
    for (const run of this.runs.values()) if (run.head !== null) heads.push(run.head);
    return heads;
  }

  /** The verdict on what was fed so far; each list holds at most `limit` rows. */
  verdict(limit: number, verification: AuditStoreVerdict['verification']): AuditStoreVerdict {
    const withoutAudit: StoreWriteWithoutAudit[] = [];
    const late: StoreWrite[] = [];
    const awaiting: StoreWrite[] = [];
    const unknown: string[] = [];
    const totals = {
      writesExecuted: 0,
      writesAudited: 0,
      auditedLate: 0,
      writesWithoutAudit: 0,
      writesWithoutAuditNotAllowed: 0,
      writesAwaitingAudit: 0,
      runsWithoutAuditStream: 0,
      auditedRunsUnknownToRunStore: 0,
    };
    let auditedRuns = 0;
    for (const runId of [...this.runs.keys()].sort()) {
      const run = this.runs.get(runId) as RunState;
      if (run.checker !== null) auditedRuns++;
      if (!run.known) {
        totals.auditedRunsUnknownToRunStore++;
        if (unknown.length < limit) unknown.push(runId);
        continue;
      }
      if (run.writes === null) continue;
      let notAllowed = 0;
      for (const stepId of [...run.writes.keys()].sort()) {
        const executed = run.writes.get(stepId) as ExecutedWrite;
        const auditAttempt = run.audits?.get(stepId) ?? null;
        const write: StoreWrite = { runId, stepId, toolName: executed.toolName, effect: executed.effect, executedAttempt: executed.attempt, executedAt: executed.executedAt, auditAttempt };
        totals.writesExecuted++;
        if (auditAttempt !== null) {
          totals.writesAudited++;
          if (auditAttempt > executed.attempt) {
            totals.auditedLate++;
            if (late.length < limit) late.push(write);
          }
          continue;
        }
        if (run.end === null) {
          totals.writesAwaitingAudit++;
          if (awaiting.length < limit) awaiting.push(write);
          continue;
        }
        const allowedBy = allowance(run.end, stepId);
        totals.writesWithoutAudit++;
        if (allowedBy === null) {
          totals.writesWithoutAuditNotAllowed++;
          notAllowed++;
        }
        if (withoutAudit.length < limit) withoutAudit.push({ ...write, runEnd: run.end.reason, allowedBy });
      }
      if (notAllowed > 0 && run.checker === null) totals.runsWithoutAuditStream++;
    }
    const brokenRuns = [...new Set(this.breaks.map((b) => b.runId))];
    const problems = describeProblems(totals, brokenRuns.length);
    return {
      runs: auditedRuns,
      records: this.auditRecords,
      brokenRuns,
      breaks: this.breaks.slice(0, Math.max(limit, 0)),
      findings: problems.length > 0,
      problems,
      totals,
      writesWithoutAudit: withoutAudit,
      auditedLate: late,
      writesAwaitingAudit: awaiting,
      auditedRunsUnknownToRunStore: unknown,
      verification,
    };
  }

  private run(runId: string): RunState {
    let run = this.runs.get(runId);
    if (run === undefined) {
      run = { known: false, end: null, writes: null, checker: null, auditRecords: 0, head: null, audits: null };
      this.runs.set(runId, run);
    }
    return run;
  }
}

function idOf(streamName: string, category: string): string | null {
  return streamName.startsWith(`${category}-`) ? streamName.slice(category.length + 1) : null;
}

function allowance(end: NonNullable<RunState['end']>, stepId: string): UnauditedWriteAllowance | null {
  if (DEAD_LETTER_REASONS.has(end.reason)) return 'failedClosed';
  if (end.reason === 'CANCELLED' && end.inFlightStepId === stepId) return 'cancelledInFlight';
  return null;
}

function describeProblems(totals: AuditStoreVerdict['totals'], brokenChains: number): string[] {
  const problems: string[] = [];
  if (brokenChains > 0) problems.push(`${count(brokenChains, 'audit chain is', 'audit chains are')} broken (a record edited, removed, inserted or reordered)`);
  if (totals.writesWithoutAuditNotAllowed > 0) {
    problems.push(
      `the run store holds ${count(totals.writesWithoutAuditNotAllowed, 'executed write', 'executed writes')} whose audit records are not in this audit store, ` +
        'in runs that neither failed closed nor were cancelled naming the write',
    );
  }
  if (totals.runsWithoutAuditStream > 0) {
    problems.push(`${count(totals.runsWithoutAuditStream, 'run that executed writes has', 'runs that executed writes have')} no audit stream in this audit store (is this the audit store those runs were audited in?)`);
  }
  if (totals.auditedRunsUnknownToRunStore > 0) {
    problems.push(`the audit store holds the audit of ${count(totals.auditedRunsUnknownToRunStore, 'run', 'runs')} that the run store does not know (is this the run store those audits belong to?)`);
  }
  return problems;
}

function count(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}
