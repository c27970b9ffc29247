import { createHash } from 'node:crypto';
import type { AuditEvent, AuditRecord, JsonValue, RunEvent, ToolEffect } from '@agent-ledger/domain';
import { canonicalJson, DEAD_LETTER_REASONS, isTerminalRunEvent, isWrite, verifyAuditChain } from '@agent-ledger/domain';
import type { TestAgent } from '@agent-ledger/runtime/testing';
import { toolsOf } from './sim-agents';
import type { History, LedgerEntry, RunHistory } from './sim-world';

/*
 * The guarantees of docs/guarantees.md (and the rules of execution.md and
 * run-lifecycle.md they rest on), checked after a schedule from what is
 * stored (every run stream and audit stream, read back) and from the ledgers
 * kept outside the product: every real execution of a tool or a model round
 * (with the simulated task that made it and the run's stream length at that
 * moment) and every append to a run stream (with its author's lease).
 *
 * The checker has its own fold of a run's stream (status and lease before
 * each event): it does not reuse the product's decider, so that a bug there
 * cannot hide itself.
 */

/** What each check proves. */
export const CHECKS = {
  'inv1-one-terminal': 'No run has more than one terminal event (and nothing but a gap record follows it).',
  'inv2-lease': 'No event of a segment is accepted after that segment lost its lease.',
  'inv3-audit': 'Every executed write has its audit event, or its run failed as not retryable.',
  'inv4-non-idempotent-once': 'No NON_IDEMPOTENT_WRITE is executed twice for the same step.',
  'inv5-completed-once': 'No completed step is executed again by a retry.',
  'inv6-all-terminal': 'Every queued run reaches a terminal status while workers run.',
  'inv7-read-audit-soft': "A read-only step's audit failure never fails its run.",
  'fence': 'A write executes only after a fence (StepStarted) appended under its own segment\'s lease (section 5).',
  'fence-lease-held': 'A segment that lost its lease executes no write, even one it fenced before (section 5: "A segment that holds no lease cannot execute a write at all").',
  'idempotency-key': 'Every execution of a tool step gets the key agent-ledger:<stepId>.',
  'approval': 'No write, nor a tool that requires approval, executes without an approval recorded before its StepStarted.',
  'denied': 'A denied call never executes.',
  'audit-chain': "Each run's audit chain is intact (hashes, links, sequence, one record per step).",
  'inv9-decision-statements': 'The audit chain holds exactly one statement per decision that took effect on the run (stating that decision), and none for a refused one.',
  'statement-first': "Nothing a decision allows (the approved calls, the denial given to the model, the input given to the tool) happens before the decision's statement is stored.",
  'runtime': 'Nothing throws unexpectedly, and the scheduler reaches quiescence.',
} as const;

/** One of {@link CHECKS}. */
export type Check = keyof typeof CHECKS;

/**
 * Violations found by the simulation and reported, that the runtime does not
 * fix yet: the property counts them without failing (SIM_STRICT=1 fails on
 * them too). Each has a skipped test named after it in known-findings.sim-spec.ts.
 */
export const KNOWN_FINDINGS: ReadonlySet<Check> = new Set<Check>([]);

/** A broken rule. */
export interface Violation {
  readonly check: Check;
  readonly runId: string | null;
  readonly message: string;
}

/** Figures the checker counts on the way (accepted outcomes worth knowing about). */
export type CheckFigures = Record<string, number>;

/** The effects of the simulation's test tools, as their code declares them. */
export const TOOL_EFFECTS: Readonly<Record<string, ToolEffect>> = {
  'test.read': 'READ_ONLY',
  'test.put': 'IDEMPOTENT_WRITE',
  'test.append': 'NON_IDEMPOTENT_WRITE',
  'test.ask': 'READ_ONLY',
  'test.guarded': 'READ_ONLY',
};
/** Tools whose code requires a person's approval for every call. */
const REQUIRES_APPROVAL = new Set(['test.guarded']);

type Status = 'NONE' | 'QUEUED' | 'RUNNING' | 'WAITING' | 'SETTLED';
interface Lease {
  readonly owner: string;
  readonly attempt: number;
}
/** The run as it stood before the event at that revision (and, at `events.length`, after the last). */
interface Before {
  readonly status: Status;
  readonly lease: Lease | null;
  /** The revision of the claim of the current lease (-1 when none). */
  readonly claimAt: number;
}

/** The checker's own fold: status and lease before each revision. */
function walk(events: readonly RunEvent[]): Before[] {
  const before: Before[] = [];
  let status: Status = 'NONE';
  let lease: Lease | null = null;
  let claimAt = -1;
  for (const [i, event] of events.entries()) {
    before.push({ status, lease, claimAt });
    switch (event.type) {
      case 'RunRequested':
      case 'RunRequeued':
      case 'ApprovalGranted':
      case 'ApprovalDenied':
      case 'InputSubmitted':
        status = 'QUEUED';
        lease = null;
        break;
      case 'RunClaimed':
        status = 'RUNNING';
        lease = { owner: event.data.owner, attempt: event.data.attempt };
        claimAt = i;
        break;
      case 'ApprovalRequested':
      case 'InputRequested':
        status = 'WAITING';
        lease = null;
        break;
      case 'RunCompleted':
      case 'RunFailed':
      case 'RunCancelled':
        status = 'SETTLED';
        lease = null;
        break;
      default:
        break;
    }
  }
  before.push({ status, lease, claimAt });
  return before;
}

const sameLease = (a: Lease | null, b: Lease | null) => a !== null && b !== null && a.owner === b.owner && a.attempt === b.attempt;
const describeLease = (l: Lease | null) => (l === null ? 'none' : `${l.owner}#${l.attempt}`);

/** Whether the step is completed by one of `events` (its result recorded, or denied). */
function completedIn(events: readonly RunEvent[], stepId: string): boolean {
  return events.some(
    (e) => ((e.type === 'ToolExecuted' || e.type === 'ModelResponded') && e.data.stepId === stepId) || (e.type === 'ApprovalDenied' && e.data.stepIds.includes(stepId)),
  );
}

/** Whether the step was approved (pre-approved, or granted by a person when `personOnly`) by one of `events`. */
function approvedIn(events: readonly RunEvent[], stepId: string, personOnly: boolean): boolean {
  return events.some(
    (e) => (e.type === 'ApprovalGranted' && e.data.stepIds.includes(stepId)) || (!personOnly && e.type === 'ToolCallPreApproved' && e.data.stepId === stepId),
  );
}

/** The revision of the last StepStarted of `stepId` before `end` (under `lease` when given), or -1. */
function lastStartBefore(events: readonly RunEvent[], stepId: string, end: number, lease?: Lease | null): number {
  for (let i = Math.min(end, events.length) - 1; i >= 0; i--) {
    const e = events[i] as RunEvent;
    if (e.type === 'StepStarted' && e.data.stepId === stepId && (lease === undefined || sameLease({ owner: e.data.owner, attempt: e.data.attempt }, lease))) return i;
  }
  return -1;
}

/**
 * Checks every invariant on a schedule's history.
 *
 * @param settled whether the schedule went through its settle phase (invariant 6 holds only then)
 */
export function checkInvariants(history: History, settled = true): { violations: Violation[]; figures: CheckFigures } {
  const violations: Violation[] = [];
  const figures: CheckFigures = {};
  const note = (figure: string) => (figures[figure] = (figures[figure] ?? 0) + 1);
  const fail = (check: Check, runId: string | null, message: string) => violations.push({ check, runId, message });
  const agents = new Map(history.agents.map((a) => [a.name, a]));

  for (const message of history.unexpected) fail('runtime', null, message);

  for (const run of history.runs) {
    const { runId, events } = run;
    const before = walk(events);
    const terminals = events.filter(isTerminalRunEvent);
    const terminal = terminals[0];

    // 1. At most one terminal event, and after it only the saga's gap record (or an operator's requeue).
    if (terminals.length > 1) fail('inv1-one-terminal', runId, `${terminals.length} terminal events: ${terminals.map((t) => t.type).join(', ')}`);
    const settledAt = events.findIndex(isTerminalRunEvent);
    if (settledAt >= 0) {
      for (const e of events.slice(settledAt + 1)) {
        if (e.type !== 'AuditGapDetected' && e.type !== 'RunRequeuedByOperator' && !isTerminalRunEvent(e)) fail('inv1-one-terminal', runId, `${e.type} appended after the run settled (${terminals[0]?.type})`);
      }
    }

    // 6. Every run ends (after the settle phase: faults healed, workers, reaper and saga run, decisions made).
    if (settled && terminal === undefined) fail('inv6-all-terminal', runId, `never settled: last event ${events.at(-1)?.type ?? 'none'}`);
    if (terminal !== undefined) note(`runs:${terminal.type === 'RunFailed' ? `FAILED ${terminal.data.reason}` : terminal.type === 'RunCompleted' ? 'COMPLETED' : 'CANCELLED'}`);

    // 2. Segment events only under the lease, from the stream: events that name their lease...
    for (const [i, e] of events.entries()) {
      const b = before[i] as Before;
      const named: Lease | null =
        e.type === 'StepStarted' || e.type === 'LeaseRenewed' || e.type === 'ApprovalRequested' || e.type === 'InputRequested' ? { owner: e.data.owner, attempt: e.data.attempt } : null;
      if (named !== null && (b.status !== 'RUNNING' || !sameLease(b.lease, named))) {
        fail('inv2-lease', runId, `#${i} ${e.type} under ${describeLease(named)} while the run was ${b.status} under ${describeLease(b.lease)}`);
      }
      if ((e.type === 'ToolExecuted' || e.type === 'RunCompleted') && (b.status !== 'RUNNING' || b.lease?.attempt !== e.data.attempt)) {
        fail('inv2-lease', runId, `#${i} ${e.type} of attempt ${e.data.attempt} while the run was ${b.status} under ${describeLease(b.lease)}`);
      }
      if (e.type === 'ToolCallPreApproved' && b.status !== 'RUNNING') fail('inv2-lease', runId, `#${i} ToolCallPreApproved while the run was ${b.status}`);
      if (e.type === 'ToolExecuted' || e.type === 'ModelResponded') {
        const startedByThisClaim = events.slice(b.claimAt + 1, i).some((s) => s.type === 'StepStarted' && s.data.stepId === e.data.stepId);
        if (b.status === 'RUNNING' && !startedByThisClaim) fail('inv2-lease', runId, `#${i} ${e.type} of ${e.data.stepId}, which the current lease never started`);
      }
      if (e.type === 'RunClaimed') {
        if (b.status !== 'QUEUED') fail('inv2-lease', runId, `#${i} RunClaimed while the run was ${b.status}`);
        const previous = events.slice(0, i).filter((c) => c.type === 'RunClaimed').length;
        if (e.data.attempt !== previous + 1) fail('inv2-lease', runId, `#${i} RunClaimed attempt ${e.data.attempt} after ${previous} claims`);
      }
    }
    // ... and every append of a segment's command, under the lease the command was sent with (this covers ModelResponded, which names none).
    for (const append of history.appends) {
      if (append.runId !== runId || append.lease === null) continue;
      const b = before[append.from] as Before;
      if (b.status !== 'RUNNING' || !sameLease(b.lease, append.lease)) {
        fail('inv2-lease', runId, `${append.command} of segment ${describeLease(append.lease)} appended ${append.types.join('+')} at #${append.from} while the run was ${b.status} under ${describeLease(b.lease)}`);
      }
    }

    const ledger = history.ledger.filter((x) => x.runId === runId);
    checkExecutions(run, ledger, before, agents.get(run.agent), fail, note);
    checkAudit(run, ledger, fail, note);
    checkStatements(run, ledger, fail, note);
  }
  return { violations, figures };
}

/** Invariants 4 and 5, the fence, the keys and the approval rules, from the execution ledger. */
function checkExecutions(
  run: RunHistory,
  ledger: readonly LedgerEntry[],
  before: readonly Before[],
  agent: TestAgent | undefined,
  fail: (check: Check, runId: string | null, message: string) => void,
  note: (figure: string) => void,
): void {
  const { runId, events } = run;
  const denied = new Set(events.flatMap((e) => (e.type === 'ApprovalDenied' ? e.data.stepIds : [])));
  const byStep = new Map<string, LedgerEntry[]>();
  for (const x of ledger) byStep.set(x.stepId, [...(byStep.get(x.stepId) ?? []), x]);

  for (const x of ledger) {
    const prefix = events.slice(0, x.runRevision);
    const b = before[Math.min(x.runRevision, events.length)] as Before;
    const lease = x.author?.lease ?? null;
    const holds = b.status === 'RUNNING' && sameLease(b.lease, lease);
    const what = `${x.kind === 'model' ? 'model round' : x.name} ${x.stepId} (execution ${x.order}, by ${describeLease(lease)}, after #${x.runRevision - 1})`;
    note(`executions:${x.name}`);

    // 5. A step completed in the stream is never executed again by the segment that holds the run.
    if (completedIn(prefix, x.stepId)) {
      if (holds) fail('inv5-completed-once', runId, `${what}: the step was already completed`);
      else note('stale executions of a completed step');
    }
    if (denied.has(x.stepId)) fail('denied', runId, `${what}: the call was denied`);

    if (x.kind !== 'tool') continue;
    if (x.idempotencyKey !== `agent-ledger:${x.stepId}`) fail('idempotency-key', runId, `${what}: key ${String(x.idempotencyKey)}`);
    const effect = TOOL_EFFECTS[x.name] ?? 'NON_IDEMPOTENT_WRITE';
    // The fence: a StepStarted of the step under the executing segment's own lease; and that segment still holds the run when the tool runs.
    const own = lastStartBefore(events, x.stepId, x.runRevision, lease);
    const start = own >= 0 ? own : lastStartBefore(events, x.stepId, x.runRevision);
    if (isWrite(effect)) {
      const fence = events[own];
      if (fence?.type !== 'StepStarted') {
        fail('fence', runId, `${what}: no fence of its own lease before it (last start #${start})`);
      } else if (!holds) {
        fail('fence-lease-held', runId, `${what}: executed after its segment lost the lease (the run was ${b.status} under ${describeLease(b.lease)})`);
      } else if (x.at > fence.data.leaseExpiresAt) {
        note('writes executed past their lease expiry, not reaped (a slow worker)');
      }
    }
    if (isWrite(effect) || REQUIRES_APPROVAL.has(x.name)) {
      const personOnly = REQUIRES_APPROVAL.has(x.name) || !(agent?.approvals?.preApproved ?? toolsOf(agent ?? { name: '', script: [] })).includes(x.name);
      if (start < 0 || !approvedIn(events.slice(0, start), x.stepId, personOnly)) {
        fail('approval', runId, `${what}: no ${personOnly ? "person's approval" : 'approval'} before its StepStarted (#${start})`);
      }
    }
  }

  // 4. At most one execution of a non-idempotent write per step (ledger), and at most one start (stream).
  for (const [stepId, executions] of byStep) {
    const appends = executions.filter((x) => x.kind === 'tool' && TOOL_EFFECTS[x.name] === 'NON_IDEMPOTENT_WRITE');
    if (appends.length > 1) fail('inv4-non-idempotent-once', runId, `${stepId} executed ${appends.length} times (executions ${appends.map((x) => x.order).join(', ')})`);
    const writes = executions.filter((x) => x.kind === 'tool' && TOOL_EFFECTS[x.name] === 'IDEMPOTENT_WRITE');
    if (writes.length > 1) note('idempotent writes executed again with their key');
  }
  const starts = new Map<string, number>();
  for (const e of events) if (e.type === 'StepStarted' && e.data.effect === 'NON_IDEMPOTENT_WRITE') starts.set(e.data.stepId, (starts.get(e.data.stepId) ?? 0) + 1);
  for (const [stepId, n] of starts) if (n > 1) fail('inv4-non-idempotent-once', runId, `${stepId} (NON_IDEMPOTENT_WRITE) started ${n} times`);

  // The approval rule from the stream: a write of a tool offered to the agent starts only once approved.
  const offered = new Set(agent === undefined ? [] : toolsOf(agent));
  for (const [i, e] of events.entries()) {
    if (e.type !== 'StepStarted' || e.data.effect === null || e.data.toolName === null) continue;
    const needs = (isWrite(e.data.effect) && offered.has(e.data.toolName)) || REQUIRES_APPROVAL.has(e.data.toolName);
    if (needs && !approvedIn(events.slice(0, i), e.data.stepId, REQUIRES_APPROVAL.has(e.data.toolName))) {
      fail('approval', runId, `#${i} StepStarted of ${e.data.toolName} ${e.data.stepId} without an approval before it`);
    }
  }
}

/** Invariants 3 and 7, and the audit chain. */
function checkAudit(run: RunHistory, ledger: readonly LedgerEntry[], fail: (check: Check, runId: string | null, message: string) => void, note: (figure: string) => void): void {
  const { runId, events, audit } = run;
  const audited = new Set(audit.flatMap((e) => (e.type === 'AuditRecorded' ? [e.data.stepId] : [])));
  const gaps = new Set(events.flatMap((e) => (e.type === 'AuditGapDetected' ? [e.data.stepId] : [])));
  const terminal = events.find(isTerminalRunEvent);

  // 3. Every executed write (executed for the ledger, or recorded as executed) has its audit, or its run failed as not retryable.
  const writes = new Set<string>();
  for (const x of ledger) if (x.kind === 'tool' && isWrite(TOOL_EFFECTS[x.name] ?? 'NON_IDEMPOTENT_WRITE')) writes.add(x.stepId);
  for (const e of events) if (e.type === 'ToolExecuted' && isWrite(e.data.effect)) writes.add(e.data.stepId);
  for (const stepId of writes) {
    if (audited.has(stepId)) continue;
    if (terminal?.type === 'RunFailed' && DEAD_LETTER_REASONS.has(terminal.data.reason)) {
      // Not retryable: dead-lettered when queued; an interactive run is never retried (deadLettered false).
      note(`unaudited writes of runs failed ${terminal.data.reason}`);
    } else if (terminal?.type === 'RunCancelled' && (terminal.data.inFlightWrite?.stepId === stepId || gaps.has(stepId))) {
      // Documented: a cancel wins the reaper's decision, and the saga only records the gap of a settled run.
      note(`unaudited writes of cancelled runs (${gaps.has(stepId) ? 'AuditGapDetected' : 'RunCancelled.inFlightWrite'})`);
    } else {
      const how =
        terminal === undefined ? 'unsettled' : terminal.type === 'RunFailed' ? `FAILED ${terminal.data.reason} (deadLettered ${terminal.data.deadLettered})` : terminal.type === 'RunCompleted' ? 'COMPLETED' : 'CANCELLED';
      fail('inv3-audit', runId, `write ${stepId} executed without its audit event; the run is ${how}${gaps.has(stepId) ? ' (gap recorded)' : ''}`);
    }
  }

  // 7. An audit failure fails a run only for a write (or for a decision whose statement could not be stored, before anything it allows).
  for (const e of events) {
    if (e.type === 'RunFailed' && e.data.reason === 'AUDIT_PERSISTENCE_FAILED' && e.data.failure.code === 'DECISION_STATEMENT_NOT_STORED') {
      note('runs failed closed by a decision statement not stored');
      continue;
    }
    if (e.type === 'RunFailed' && e.data.reason === 'AUDIT_PERSISTENCE_FAILED') {
      const stepId = /write step (\S+) \(tool/.exec(e.data.failure.message)?.[1];
      const started = events.find((s) => s.type === 'StepStarted' && s.data.stepId === stepId);
      const effect = started?.type === 'StepStarted' ? started.data.effect : null;
      if (effect === null || !isWrite(effect)) fail('inv7-read-audit-soft', runId, `failed AUDIT_PERSISTENCE_FAILED for ${stepId ?? '(no step named)'} of effect ${String(effect)}: ${e.data.failure.message}`);
      else note('runs failed closed by a write audit failure');
    }
    if (e.type === 'AuditGapDetected' && !isWrite(e.data.effect)) fail('inv7-read-audit-soft', runId, `an audit gap reported for ${e.data.stepId} of effect ${e.data.effect}`);
  }

  for (const broken of verifyAuditChain(audit.map((e) => e.data as AuditRecord))) {
    fail('audit-chain', runId, `audit record ${broken.index} (${broken.stepId ?? '-'}): ${broken.problem}`);
  }
}

const sha256 = (value: JsonValue) => createHash('sha256').update(canonicalJson(value)).digest('hex');

/** A decision that took effect on the run, as the checker derives it from the run's own events (not with the product's code). */
interface Decision {
  readonly key: string;
  /** Its event's revision in the run stream. */
  readonly at: number;
  /** What its statement must say. */
  readonly expected: Record<string, JsonValue>;
  /** Whether an execution comes from the decision: an approved call, the model told of a denial, the tool given the input. */
  readonly allows: (x: LedgerEntry) => boolean;
}

function decisionsOf(events: readonly RunEvent[]): Decision[] {
  const decisions: Decision[] = [];
  for (const [at, e] of events.entries()) {
    if (e.type === 'RunRequested') {
      // Who started the run: stated after the request; it allows nothing of its own (a write needs its own audit record).
      decisions.push({
        key: 'start',
        at,
        expected: { agent: e.data.agent, mode: e.data.mode, inputHash: sha256(e.data.input), requestedBy: e.data.requestedBy, requestedAt: e.data.requestedAt, continuationOf: e.data.continuation?.of ?? null },
        allows: () => false,
      });
    }
    if (e.type === 'ApprovalGranted' || e.type === 'ApprovalDenied') {
      const asked = events.slice(0, at).findLast((r) => r.type === 'ApprovalRequested' && r.data.round === e.data.round);
      const calls = asked?.type === 'ApprovalRequested' ? asked.data.calls.filter((c) => e.data.stepIds.includes(c.stepId)) : [];
      const granted = e.type === 'ApprovalGranted';
      decisions.push({
        key: `approval:${e.data.round}`,
        at,
        expected: {
          decision: granted ? 'approved' : 'denied',
          decidedBy: e.data.decidedBy,
          reason: e.data.reason,
          calls: calls.map((c) => ({ stepId: c.stepId, toolName: c.toolName, effect: c.effect, argumentsHash: sha256(c.arguments) })),
        },
        allows: (x) => x.runRevision > at && (granted ? x.kind === 'tool' && e.data.stepIds.includes(x.stepId) : x.kind === 'model'),
      });
    }
    if (e.type === 'InputSubmitted') {
      decisions.push({
        key: `input:${e.data.stepId}`,
        at,
        expected: { stepId: e.data.stepId, inputHash: sha256(e.data.input), answeredBy: e.data.submittedBy },
        allows: (x) => x.runRevision > at && x.kind === 'tool' && x.stepId === e.data.stepId,
      });
    }
    if (e.type === 'RunRequeuedByOperator' && e.data.resolution !== null && e.data.inFlightWrite !== null) {
      decisions.push({
        key: `resolution:${e.data.inFlightWrite.stepId}:${e.data.continuationRunId}`,
        at,
        expected: { outcome: e.data.resolution.outcome, note: e.data.resolution.note, resolvedBy: e.data.requestedBy },
        allows: () => false,
      });
    }
  }
  return decisions;
}

/** The decision an audit event states; null for a step's audit record. */
function statedKey(e: AuditEvent): string | null {
  if (e.type === 'RunStartRecorded') return 'start';
  if (e.type === 'ApprovalDecisionRecorded') return `approval:${e.data.round}`;
  if (e.type === 'InputAnswerRecorded') return `input:${e.data.stepId}`;
  if (e.type === 'WriteResolutionRecorded') return `resolution:${e.data.stepId}:${e.data.continuationRunId}`;
  return null;
}

/** Invariant 9: one statement per decision that took effect, stating it, none for a refused one; and the statement before anything the decision allows. */
function checkStatements(run: RunHistory, ledger: readonly LedgerEntry[], fail: (check: Check, runId: string | null, message: string) => void, note: (figure: string) => void): void {
  const { runId, events, audit } = run;
  const decisions = decisionsOf(events);
  const keys = new Set(decisions.map((d) => d.key));
  const statements = audit.map((e, index) => ({ e, index, key: statedKey(e) })).filter((s) => s.key !== null);
  for (const s of statements) {
    if (!keys.has(s.key as string)) fail('inv9-decision-statements', runId, `audit record ${s.index} (${s.e.type}) states ${s.key}, a decision the run does not hold (refused)`);
  }
  for (const decision of decisions) {
    const stated = statements.filter((s) => s.key === decision.key);
    note(`decisions:${decision.key.split(':')[0]}`);
    if (stated.length !== 1) {
      fail('inv9-decision-statements', runId, `${decision.key} (#${decision.at} ${events[decision.at]?.type}) has ${stated.length} statements in the audit chain`);
      continue;
    }
    const statement = stated[0] as (typeof stated)[number];
    const data = statement.e.data as unknown as Record<string, JsonValue>;
    for (const [field, value] of Object.entries(decision.expected)) {
      if (canonicalJson(data[field] ?? null) !== canonicalJson(value)) {
        fail('inv9-decision-statements', runId, `${decision.key}: its statement says ${field} ${JSON.stringify(data[field])}, the run ${JSON.stringify(value)}`);
      }
    }
    for (const x of ledger.filter(decision.allows)) {
      if (x.auditRevision <= statement.index) {
        fail('statement-first', runId, `${x.name} ${x.stepId} (execution ${x.order}) ran before the statement of ${decision.key} was stored (audit length ${x.auditRevision}, statement at ${statement.index})`);
      }
    }
  }
}

/** The events of a run, one line each, for a report. */
export function describeRun(run: RunHistory, ledger: readonly LedgerEntry[]): string {
  const lines = [`run ${run.runId} (agent ${run.agent})`];
  for (const [i, e] of run.events.entries()) lines.push(`  #${i} ${e.type} ${compact(e.data, run.runId)}`);
  lines.push('  audit:');
  for (const e of run.audit) lines.push(`    ${e.type} ${compact(e.data, run.runId)}`);
  lines.push('  executions:');
  for (const x of ledger.filter((l) => l.runId === run.runId)) {
    lines.push(`    ${x.order}: ${x.name} ${x.stepId.slice(run.runId.length)} by ${x.author?.lease ? describeLease(x.author.lease) : 'no lease'} after #${x.runRevision - 1} at t=${x.at}`);
  }
  return lines.join('\n');
}

const OMIT = new Set(['runId', 'hash', 'previousHash', 'input', 'instructions']);
function compact(data: object, runId: string): string {
  const entries = Object.entries(data).filter(([k, v]) => !OMIT.has(k) && v !== null && v !== undefined);
  const text = JSON.stringify(Object.fromEntries(entries)).replaceAll(runId, '');
  return text.length > 240 ? `${text.slice(0, 237)}...` : text;
}
