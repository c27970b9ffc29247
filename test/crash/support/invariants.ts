/**
 * The guarantees of `docs/guarantees.md` (numbered as there), checked after a
 * crash scenario from the stores' events and the execution ledger (the read
 * models, invariant 8, are compared in `read-models.ts`).
 */
import type { LedgerLine } from '../../../apps/agent-ledger/src/config/crash-test/test-ledger.tools';
import type { History, HistoryEvent } from './history';

/** A broken invariant, about one run (or none). */
export interface Violation {
  /** 1 to 8, as numbered in docs/guarantees.md; 0 for the harness's own premises (a ledger line for every recorded execution). */
  readonly invariant: number;
  readonly runId: string | null;
  readonly message: string;
}

/** What the scenario submitted. */
export interface SubmittedRun {
  readonly runId: string;
  readonly agent: string;
  readonly mode: 'queued' | 'interactive';
}

/** Figures the checks count on the way (the evidence that the scenario exercised something). */
export interface HistoryFigures {
  readonly runs: number;
  readonly byOutcome: Record<string, number>;
  /** Ledger lines (real executions), by tool. */
  readonly executions: Record<string, number>;
  /** Steps executed more than once (allowed: a read or an idempotent write never completed before), by tool. */
  readonly reExecutedSteps: Record<string, number>;
  readonly claims: number;
  readonly requeuedLeaseExpired: number;
  readonly auditGaps: number;
  /** Audits recorded by a later segment than the one that executed the step (it died between ToolExecuted and AuditRecorded). */
  readonly auditsRecordedByRetry: number;
  /**
   * Reads that ran and left no record: where a step's records go in one
   * commit, a read's start is stored with its result, after the read; a
   * process killed in between, or a run that ended before the read ran
   * again, leaves none (allowed: a read changes nothing).
   */
  readonly readsWithoutRecord: number;
  readonly approvalsGranted: number;
}

const TERMINAL = new Set(['RunCompleted', 'RunFailed', 'RunCancelled']);
const AFTER_TERMINAL_ALLOWED = new Set(['AuditGapDetected', 'RunRequeuedByOperator']);
/** Reasons of a run that failed as not retryable (dead letters, and an interactive run's error-driven end). */
export const NOT_RETRYABLE_REASONS = new Set(['NOT_RETRYABLE', 'AUDIT_PERSISTENCE_FAILED', 'AUDIT_MISSING', 'WRITE_INTERRUPTED', 'RETRIES_EXHAUSTED']);
const isWrite = (effect: unknown) => effect === 'IDEMPOTENT_WRITE' || effect === 'NON_IDEMPOTENT_WRITE';

interface StepFacts {
  readonly stepId: string;
  kind: string | null;
  toolName: string | null;
  effect: string | null;
  starts: number;
  /** The attempts of its `StepStarted` events. */
  startAttempts: number[];
  executed: HistoryEvent[];
  responded: number;
  denied: boolean;
  startedAfterCompletion: boolean;
}

/** Checks invariants 1 to 7 on a settled scenario's history. */
export function checkInvariants(
  history: History,
  submitted: readonly SubmittedRun[],
): { violations: Violation[]; figures: HistoryFigures } {
  const violations: Violation[] = [];
  const add = (invariant: number, runId: string | null, message: string) => violations.push({ invariant, runId, message });
  const figures = {
    runs: 0,
    byOutcome: {} as Record<string, number>,
    executions: {} as Record<string, number>,
    reExecutedSteps: {} as Record<string, number>,
    claims: 0,
    requeuedLeaseExpired: 0,
    auditGaps: 0,
    auditsRecordedByRetry: 0,
    readsWithoutRecord: 0,
    approvalsGranted: 0,
  };
  const ledgerByStep = new Map<string, LedgerLine[]>();
  for (const line of history.ledger) {
    figures.executions[line.tool] = (figures.executions[line.tool] ?? 0) + 1;
    const list = ledgerByStep.get(line.stepId) ?? [];
    list.push(line);
    ledgerByStep.set(line.stepId, list);
  }
  for (const line of history.unreadableLedgerLines) add(0, null, `an unreadable ledger line: ${line}`);

  const modes = new Map(submitted.map((r) => [r.runId, r.mode]));
  const runIds = [...new Set([...submitted.map((r) => r.runId), ...history.runs.keys()])].sort();
  for (const runId of runIds) {
    figures.runs += 1;
    const events = history.runs.get(runId) ?? [];
    const audits = history.audits.get(runId) ?? [];
    if (events.length === 0) {
      add(6, runId, 'submitted (the service answered), but the store has no event of it: the run is lost');
      continue;
    }
    const mode = (events[0]?.data['mode'] as string | undefined) ?? modes.get(runId) ?? 'unknown';

    // 1. One terminal event, nothing but the allowed records after it.
    const terminals = events.filter((e) => TERMINAL.has(e.type));
    const terminal = terminals[0] ?? null;
    if (terminals.length > 1) add(1, runId, `${terminals.length} terminal events: ${terminals.map((e) => `#${e.revision} ${e.type}`).join(', ')}`);
    if (terminal !== null) {
      for (const e of events) {
        if (e.revision > terminal.revision && !AFTER_TERMINAL_ALLOWED.has(e.type) && !TERMINAL.has(e.type)) {
          add(1, runId, `#${e.revision} ${e.type} appended after the terminal event #${terminal.revision} ${terminal.type}`);
        }
      }
    }
    // 6. Every run reaches a terminal status (checked after the settle phase, with every process running).
    if (terminal === null) add(6, runId, `the ${mode} run did not reach a terminal status (last event #${events.at(-1)?.revision} ${events.at(-1)?.type})`);
    const outcome = terminal === null ? 'UNSETTLED' : terminal.type === 'RunFailed' ? `FAILED ${String(terminal.data['reason'])}` : terminal.type === 'RunCompleted' ? 'COMPLETED' : 'CANCELLED';
    const failureCode = terminal?.type === 'RunFailed' ? ((terminal.data['failure'] as { code?: string } | null)?.code ?? null) : null;
    const outcomeKey = `${mode} ${outcome}${failureCode === null || failureCode === terminal?.data['reason'] ? '' : ` (${failureCode})`}`;
    figures.byOutcome[outcomeKey] = (figures.byOutcome[outcomeKey] ?? 0) + 1;
    const failedNotRetryable = terminal?.type === 'RunFailed' && NOT_RETRYABLE_REASONS.has(String(terminal.data['reason']));

    // 2. No event of a segment after it lost its lease: each segment event carries the lease of the current claim, while the run is RUNNING.
    let status: string | null = null;
    let owner: string | null = null;
    let attempt = 0;
    const steps = new Map<string, StepFacts>();
    const stepOf = (stepId: string): StepFacts => {
      let facts = steps.get(stepId);
      if (facts === undefined) {
        facts = { stepId, kind: null, toolName: null, effect: null, starts: 0, startAttempts: [], executed: [], responded: 0, denied: false, startedAfterCompletion: false };
        steps.set(stepId, facts);
      }
      return facts;
    };
    const segmentEvent = (e: HistoryEvent) => {
      const eOwner = e.data['owner'];
      const eAttempt = e.data['attempt'];
      const problems: string[] = [];
      if (status !== 'RUNNING') problems.push(`the run was ${status ?? 'not requested'}`);
      if (typeof eOwner === 'string' && eOwner !== owner) problems.push(`its owner ${eOwner} is not the lease's ${owner}`);
      if (typeof eAttempt === 'number' && eAttempt !== attempt) problems.push(`its attempt ${eAttempt} is not the lease's ${attempt}`);
      if (problems.length > 0) add(2, runId, `#${e.revision} ${e.type} appended after its segment lost the lease: ${problems.join('; ')}`);
    };
    for (const e of events) {
      const d = e.data;
      switch (e.type) {
        case 'RunRequested':
          status = 'QUEUED';
          break;
        case 'RunClaimed':
          figures.claims += 1;
          if (status !== 'QUEUED') add(2, runId, `#${e.revision} RunClaimed while the run was ${status}`);
          if (d['attempt'] !== attempt + 1) add(2, runId, `#${e.revision} RunClaimed with attempt ${String(d['attempt'])} after attempt ${attempt}`);
          status = 'RUNNING';
          owner = String(d['owner']);
          attempt = Number(d['attempt']);
          break;
        case 'StepStarted': {
          segmentEvent(e);
          const step = stepOf(String(d['stepId']));
          step.kind = String(d['kind']);
          step.toolName = (d['toolName'] as string | null) ?? null;
          step.effect = (d['effect'] as string | null) ?? null;
          step.starts += 1;
          step.startAttempts.push(Number(d['attempt']));
          if (step.executed.length > 0 || step.responded > 0) step.startedAfterCompletion = true;
          break;
        }
        case 'LeaseRenewed':
        case 'ToolCallPreApproved':
        case 'ToolEffectConflictRecorded':
          segmentEvent(e);
          break;
        case 'ModelResponded':
          segmentEvent(e);
          stepOf(String(d['stepId'])).responded += 1;
          break;
        case 'ToolExecuted': {
          const step = stepOf(String(d['stepId']));
          step.toolName = (d['toolName'] as string | null) ?? step.toolName;
          step.effect = (d['effect'] as string | null) ?? step.effect;
          if ((d['error'] as { code?: string } | null)?.code === 'APPROVAL_DENIED') {
            step.denied = true;
            break;
          }
          segmentEvent(e);
          step.executed.push(e);
          break;
        }
        case 'RunCompleted':
          segmentEvent(e);
          status = 'SETTLED';
          break;
        case 'ApprovalRequested':
        case 'InputRequested':
          segmentEvent(e);
          status = 'WAITING';
          break;
        case 'ApprovalGranted':
        case 'InputSubmitted':
        case 'RunRequeued':
          if (e.type === 'ApprovalGranted') figures.approvalsGranted += 1;
          if (e.type === 'RunRequeued' && d['cause'] === 'leaseExpired') figures.requeuedLeaseExpired += 1;
          status = 'QUEUED';
          break;
        case 'ApprovalDenied':
          status = 'QUEUED';
          break;
        case 'RunFailed':
        case 'RunCancelled':
          status = 'SETTLED';
          break;
        case 'AuditGapDetected': {
          figures.auditGaps += 1;
          // 7. A read-only step's audit never fails its run: the saga watches writes only.
          if (!isWrite(d['effect'])) add(7, runId, `#${e.revision} AuditGapDetected for ${String(d['stepId'])}, a ${String(d['effect'])} step`);
          break;
        }
        default:
          break;
      }
    }

    // 7. A run failed for an audit names a write step.
    if (terminal?.type === 'RunFailed' && terminal.data['reason'] === 'AUDIT_PERSISTENCE_FAILED') {
      const message = String((terminal.data['failure'] as { message?: string } | null)?.message ?? '');
      const named = /write step (\S+) \(tool \S+, (\w+)\)/.exec(message);
      if (named === null || !isWrite(named[2]) || !isWrite(steps.get(named[1] as string)?.effect)) {
        add(7, runId, `failed AUDIT_PERSISTENCE_FAILED, but not for a write step: "${message}"`);
      }
    }

    const audited = new Map<string, HistoryEvent[]>();
    for (const a of audits) {
      if (a.type !== 'AuditRecorded') continue;
      const list = audited.get(String(a.data['stepId'])) ?? [];
      list.push(a);
      audited.set(String(a.data['stepId']), list);
    }
    for (const [stepId, records] of audited) {
      if (records.length > 1) add(3, runId, `step ${stepId} has ${records.length} AuditRecorded events (once per step)`);
    }

    for (const step of steps.values()) {
      const lines = ledgerByStep.get(step.stepId) ?? [];
      const completion = step.executed[0] ?? null;
      // 5. No completed step is executed again.
      if (step.executed.length > 1) add(5, runId, `step ${step.stepId} has ${step.executed.length} ToolExecuted events`);
      if (step.responded > 1) add(5, runId, `step ${step.stepId} has ${step.responded} ModelResponded events`);
      if (step.startedAfterCompletion) add(5, runId, `step ${step.stepId} was started again after it completed`);
      if (completion !== null) {
        const doneAt = Number(completion.data['attempt']);
        const later = lines.filter((l) => l.attempt > doneAt);
        const same = lines.filter((l) => l.attempt === doneAt);
        if (later.length > 0) add(5, runId, `step ${step.stepId} completed at attempt ${doneAt} (#${completion.revision}) and was executed again: ledger lines of attempts ${later.map((l) => `${l.attempt} (pid ${l.pid})`).join(', ')}`);
        if (same.length > 1) add(5, runId, `step ${step.stepId} was executed ${same.length} times by its completing segment (attempt ${doneAt})`);
        // The harness's premise: a recorded successful execution of a ledger tool left its line.
        if (step.toolName?.startsWith('ledger.') === true && completion.data['outcome'] === 'succeeded' && same.length === 0) {
          add(0, runId, `step ${step.stepId} has a successful ToolExecuted at attempt ${doneAt} but no ledger line of that attempt`);
        }
      }
      if (lines.length > 1 && step.effect !== 'NON_IDEMPOTENT_WRITE') {
        const tool = step.toolName ?? 'unknown';
        figures.reExecutedSteps[tool] = (figures.reExecutedSteps[tool] ?? 0) + 1;
      }
      // 4. A NON_IDEMPOTENT_WRITE is executed at most once per step, and fenced at most once.
      if (step.effect === 'NON_IDEMPOTENT_WRITE') {
        if (lines.length > 1) add(4, runId, `NON_IDEMPOTENT_WRITE step ${step.stepId} was executed ${lines.length} times: ${lines.map((l) => `attempt ${l.attempt} pid ${l.pid}`).join(', ')}`);
        if (step.starts > 1) add(4, runId, `NON_IDEMPOTENT_WRITE step ${step.stepId} was fenced (StepStarted) ${step.starts} times`);
      }
      // 3. Every executed write has its audit event, or its run failed as not retryable.
      if (isWrite(step.effect) && !step.denied) {
        const audit = audited.get(step.stepId)?.[0];
        if (completion !== null && audit === undefined && !failedNotRetryable) {
          add(3, runId, `write step ${step.stepId} (${step.effect}) executed (#${completion.revision} ToolExecuted) without AuditRecorded, and its run ended ${outcome}`);
        }
        if (completion === null && lines.length > 0 && !failedNotRetryable) {
          add(3, runId, `write step ${step.stepId} (${step.effect}) ran (${lines.length} ledger line(s)) without a ToolExecuted, and its run ended ${outcome}`);
        }
      }
      const audit = audited.get(step.stepId)?.[0];
      if (completion !== null && audit !== undefined && Number(audit.data['attempt']) > Number(completion.data['attempt'])) figures.auditsRecordedByRetry += 1;
    }
    // 2. A write runs only under its fence, appended under the lease of the segment that runs it.
    for (const [stepId, lines] of ledgerByStep) {
      if (lines[0]?.runId !== runId) continue;
      const step = steps.get(stepId);
      if (step === undefined) {
        if (lines.every((l) => l.tool === 'ledger.read')) figures.readsWithoutRecord += 1;
        else add(2, runId, `step ${stepId} ran (${lines.length} ledger line(s)) but the run's stream never started it`);
        continue;
      }
      if (!isWrite(step.effect)) continue;
      for (const line of lines) {
        if (!step.startAttempts.includes(line.attempt)) {
          add(2, runId, `write step ${stepId} ran at attempt ${line.attempt} (pid ${line.pid}) without a fence (StepStarted) of that attempt (fences: ${step.startAttempts.join(', ') || 'none'})`);
        }
      }
    }
  }
  // Ledger lines of runs the store does not know.
  for (const line of history.ledger) {
    if (!history.runs.has(line.runId)) add(0, line.runId, `a ledger line of a run the store does not know: ${JSON.stringify(line)}`);
  }
  return { violations, figures };
}
