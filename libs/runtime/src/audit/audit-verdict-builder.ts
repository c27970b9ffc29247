import type { AuditChainCheckerState, StoredAuditRecord, TerminationReason, ToolEffect } from '@agent-ledger/domain';
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
  readonly runId: string;
  /** The run's place in the builder (0, 1, ...: the order it was first seen in), which the rotating head check follows. */
  readonly ordinal: number;
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
 * One run's facts in an {@link AuditVerdictBuilder}, as plain JSON data: what
 * a checkpoint keeps of the run ({@link AuditVerdictBuilder.runState},
 * {@link AuditVerdictBuilder.restore}).
 */
export interface AuditVerdictRunState {
  readonly runId: string;
  /** The run's place in the builder (0, 1, ...: the order it was first seen in). */
  readonly ordinal: number;
  /** Whether the run store holds the run. */
  readonly known: boolean;
  /** How the run ended (null while it runs). */
  readonly end: { readonly reason: TerminationReason; readonly inFlightStepId: string | null } | null;
  /** Its executed writes: `[stepId, toolName, effect, attempt, executedAt]` (null: none). */
  readonly writes: readonly (readonly [string, string, ToolEffect, number, number])[] | null;
  /** Its audit chain's checker (null: no audit record yet). */
  readonly checker: AuditChainCheckerState | null;
  readonly auditRecords: number;
  /** Its audit head: `[revision (decimal), eventId, hash]` (null: no audit stream). */
  readonly head: readonly [string, string, string | null] | null;
  /** The attempt of the `AuditRecorded` of each step that has one: `[stepId, attempt]` (null: none). */
  readonly audits: readonly (readonly [string, number])[] | null;
}

/** The audit heads a rotating check re-reads next ({@link AuditVerdictBuilder.rotatingHeads}). */
export interface RotatingHeads {
  readonly heads: readonly AuditHead[];
  /** Where the next rotation starts. */
  readonly cursor: number;
  /** Whether this rotation passed the last run: a round of the rotation is complete. */
  readonly wrapped: boolean;
}

/**
 * Accumulates the facts of an {@link AuditStoreVerdict} from events of the
 * run store (`run-<runId>` streams) and of the audit store (`audit-<runId>`),
 * fed in each store's order; the two stores may be fed in any interleaving.
 * Memory grows with the runs and their writes, not with the events.
 *
 * It can be kept as a checkpoint and continued: {@link runState} of each run
 * it changed ({@link takeChangedRuns}) and {@link breaksFound}, given back to
 * {@link restore}, make a builder that goes on as this one would.
 */
export class AuditVerdictBuilder {
  private readonly runs = new Map<string, RunState>();
  /** The runs by ordinal. */
  private readonly order: RunState[] = [];
  private readonly breaks: RunChainBreak[] = [];
  private auditRecords = 0;
  private changed = new Set<string>();
  private changes = 0;

  /**
   * A builder holding `runs` (every run of a checkpoint, each ordinal once,
   * from 0) and the chain breaks found before, in the order found.
   *
   * @throws Error when the runs' ordinals are not 0 to n - 1, each once
   */
  static restore(runs: Iterable<AuditVerdictRunState>, breaks: Iterable<RunChainBreak>): AuditVerdictBuilder {
    const builder = new AuditVerdictBuilder();
    const byOrdinal: (RunState | undefined)[] = [];
    for (const data of runs) {
      if (!Number.isSafeInteger(data.ordinal) || data.ordinal < 0 || byOrdinal[data.ordinal] !== undefined || builder.runs.has(data.runId)) {
        throw new Error(`the run ${data.runId} has a bad or repeated ordinal (${data.ordinal})`);
      }
      const run = restoredRun(data);
      byOrdinal[data.ordinal] = run;
      builder.runs.set(run.runId, run);
      builder.auditRecords += run.auditRecords;
    }
    for (let i = 0; i < byOrdinal.length; i++) {
      const run = byOrdinal[i];
      if (run === undefined) throw new Error(`no run has the ordinal ${i}`);
      builder.order.push(run);
    }
    builder.breaks.push(...breaks);
    return builder;
  }

  /** How many events changed this builder since it was made (a verdict computed at the same count is the same). */
  get version(): number {
    return this.changes;
  }

  /** How many runs it holds. */
  get runCount(): number {
    return this.order.length;
  }

  /** The runs changed since the last call (or since the builder was made), in the order first changed; forgets them. */
  takeChangedRuns(): string[] {
    const changed = [...this.changed];
    this.changed = new Set();
    return changed;
  }

  /** One run's facts, as plain data (undefined for a run it does not hold). */
  runState(runId: string): AuditVerdictRunState | undefined {
    const run = this.runs.get(runId);
    return run === undefined ? undefined : runStateOf(run);
  }

  /** Every run's facts, by ordinal. */
  *runStates(): IterableIterator<AuditVerdictRunState> {
    for (const run of this.order) yield runStateOf(run);
  }

  /** Every chain break found so far, in the order found (a checkpoint keeps those after the ones it has). */
  breaksFound(): readonly RunChainBreak[] {
    return this.breaks;
  }

  /** Feeds an event of a run stream (other types than {@link VERDICT_RUN_EVENT_TYPES} are ignored, and not decoded). */
  addRunEvent(event: RecordedEvent): void {
    const runId = idOf(event.streamName, StreamCategory.RUN);
    if (runId === null) return;
    const run = this.run(runId);
    this.touch(runId);
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
    this.touch(runId);
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
    for (const run of this.order) if (run.head !== null) heads.push(run.head);
    return heads;
  }

  /** The head of a run's audit stream as read so far (null: none read, or a run it does not hold). */
  auditHead(runId: string): AuditHead | null {
    return this.runs.get(runId)?.head ?? null;
  }

  /**
   * At most `count` audit heads, in the runs' order from the ordinal `cursor`
   * on (runs without an audit stream are passed over), going round to the
   * first run after the last, and each head at most once: successive calls,
   * each from the cursor the last one gave, re-read every head in turn.
   */
  rotatingHeads(cursor: number, count: number): RotatingHeads {
    const total = this.order.length;
    if (count <= 0 || total === 0) return { heads: [], cursor: 0 <= cursor && cursor < total ? cursor : 0, wrapped: false };
    const heads: AuditHead[] = [];
    let at = Number.isSafeInteger(cursor) && cursor >= 0 && cursor < total ? cursor : 0;
    let wrapped = false;
    for (let visited = 0; visited < total && heads.length < count; visited++) {
      const head = (this.order[at] as RunState).head;
      if (head !== null) heads.push(head);
      at++;
      if (at === total) {
        at = 0;
        wrapped = true;
      }
    }
    return { heads, cursor: at, wrapped };
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
      run = { runId, ordinal: this.order.length, known: false, end: null, writes: null, checker: null, auditRecords: 0, head: null, audits: null };
      this.runs.set(runId, run);
      this.order.push(run);
    }
    return run;
  }

  private touch(runId: string): void {
    this.changes++;
    this.changed.add(runId);
  }
}

function runStateOf(run: RunState): AuditVerdictRunState {
  return {
    runId: run.runId,
    ordinal: run.ordinal,
    known: run.known,
    end: run.end,
    writes: run.writes === null ? null : [...run.writes].map(([stepId, w]) => [stepId, w.toolName, w.effect, w.attempt, w.executedAt] as const),
    checker: run.checker?.snapshot() ?? null,
    auditRecords: run.auditRecords,
    head: run.head === null ? null : [String(run.head.revision), run.head.eventId, run.head.hash],
    audits: run.audits === null ? null : [...run.audits],
  };
}

function restoredRun(data: AuditVerdictRunState): RunState {
  const { runId } = data;
  return {
    runId,
    ordinal: data.ordinal,
    known: data.known === true,
    end: data.end === null ? null : { reason: data.end.reason, inFlightStepId: data.end.inFlightStepId ?? null },
    writes: data.writes === null ? null : new Map(data.writes.map(([stepId, toolName, effect, attempt, executedAt]): [string, ExecutedWrite] => [stepId, { toolName, effect, attempt, executedAt }])),
    checker: data.checker === null ? null : AuditChainChecker.restore(data.checker),
    auditRecords: data.auditRecords,
    head: data.head === null ? null : { runId, revision: BigInt(data.head[0]), eventId: data.head[1], hash: data.head[2] },
    audits: data.audits === null ? null : new Map<string, number>(data.audits),
  };
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
