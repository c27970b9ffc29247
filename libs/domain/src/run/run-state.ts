import type { DecisionStatement } from '../audit/decision-statement';
import { statementOf } from '../audit/decision-statement';
import type { JsonValue } from '../json';
import type { Principal } from '../principal/principal';
import type { ToolEffect } from '../tool-effect/tool-effect';
import { isWrite } from '../tool-effect/tool-effect';
import type { ApprovalCall, CarriedStep, FailureInfo, InFlightWrite, ModelResponse, RunEvent } from './run-events';
import type { PendingApproval } from './pending-approval';
import { idempotencyKeyFor, stepIdFor } from './step-id';
import type { RunMode } from './run-mode';
import type { RunStatus } from './run-status';
import { runStatusAfter } from './run-status-machine';
import type { StepKind } from './step-id';
import type { TerminationReason } from './termination-reason';

export type { PendingApproval } from './pending-approval';

/** The lease a run is held under while it runs. */
export interface Lease {
  readonly owner: string;
  readonly attempt: number;
  readonly expiresAt: number;
}

/** What the run's stream says about one step. */
export interface StepRecord {
  readonly stepId: string;
  readonly kind: StepKind;
  readonly round: number;
  readonly callIndex: number | null;
  readonly toolName: string | null;
  readonly effect: ToolEffect | null;
  readonly idempotencyKey: string | null;
  readonly status: 'started' | 'completed';
  /** How many times the step was started (more than once after a retry). */
  readonly starts: number;
  /** The model's answer, once an `llm` step completed. */
  readonly response?: ModelResponse;
  /** The tool's outcome, once a `tool` step completed. */
  readonly outcome?: 'succeeded' | 'failed';
  readonly result?: JsonValue;
  readonly error?: FailureInfo | null;
  /** True for a call a person denied: it never executed, its result tells the model so. */
  readonly denied?: true;
}

/** The input a tool of a waiting run asked for. */
export interface PendingInput {
  readonly stepId: string;
  readonly round: number;
  readonly callIndex: number;
  readonly toolName: string;
  readonly prompt: string;
  readonly requestedAt: number;
}

/** How a tool call was approved: by a person, or by the agent's configuration. */
export type ApprovalGrant = 'granted' | 'preApproved';

/** How a settled run ended. */
export interface Settlement {
  readonly status: RunStatus;
  readonly reason: TerminationReason;
  readonly deadLettered: boolean;
}

/** The run as its events tell it: everything the decider needs, nothing more. */
export interface RunState {
  /** Null until `RunRequested`. */
  readonly status: RunStatus | null;
  readonly runId: string | null;
  readonly agent: string | null;
  /** The run's input, as requested. */
  readonly input: JsonValue;
  readonly mode: RunMode | null;
  readonly maxIterations: number;
  /** Who started the run (`RunRequested.requestedBy`); null until it is requested. */
  readonly requestedBy: Principal | null;
  /** Claims so far; the current segment's attempt. */
  readonly attempt: number;
  /** Requeues so far (failure retries and stale reclaims together). */
  readonly requeues: number;
  /** A queued run is due from this time on. */
  readonly notBefore: number | null;
  readonly lease: Lease | null;
  readonly cancelRequested: boolean;
  /** Who asked for the cancel; null before one. */
  readonly cancelRequestedBy: Principal | null;
  readonly steps: ReadonlyMap<string, StepRecord>;
  readonly inFlightWrite: InFlightWrite | null;
  readonly settlement: Settlement | null;
  /** Steps whose missing audit event was already recorded. */
  readonly auditGaps: ReadonlySet<string>;
  /** The run whose step ids name this run's idempotency keys: itself, or the first run of a continuation chain. */
  readonly idempotencyRoot: string | null;
  /** The run an operator requeued this one as, once requeued. */
  readonly continuedAs: string | null;
  /** Who requeued it (`RunRequeuedByOperator.requestedBy`): the continuation's starter. Null before a requeue. */
  readonly requeuedBy: Principal | null;
  /** The calls waiting for a decision, while `WAITING_FOR_APPROVAL`. */
  readonly pendingApproval: PendingApproval | null;
  /** Tool calls approved so far, by step id: they execute without asking again. */
  readonly approvals: ReadonlyMap<string, ApprovalGrant>;
  /** The input a tool asked for, while `WAITING_FOR_INPUT`. */
  readonly pendingInput: PendingInput | null;
  /** Input submitted so far, by the step id of the tool that asked. */
  readonly inputs: ReadonlyMap<string, JsonValue>;
  /** True once the run waited for a person: any worker may then resume it, whatever its mode. */
  readonly resumedAfterPause: boolean;
  /**
   * What the audit chain must state about each decision that took effect on
   * this run (approvals, denials, input answers, an operator's resolution), in
   * order, derived from the run's own events.
   */
  readonly statements: readonly DecisionStatement[];
}

/** The state of a run that was never requested. */
export function initialRunState(): RunState {
  return {
    status: null,
    runId: null,
    agent: null,
    input: null,
    mode: null,
    maxIterations: 0,
    requestedBy: null,
    attempt: 0,
    requeues: 0,
    notBefore: null,
    lease: null,
    cancelRequested: false,
    cancelRequestedBy: null,
    steps: new Map(),
    inFlightWrite: null,
    settlement: null,
    auditGaps: new Set(),
    idempotencyRoot: null,
    continuedAs: null,
    requeuedBy: null,
    pendingApproval: null,
    approvals: new Map(),
    pendingInput: null,
    inputs: new Map(),
    resumedAfterPause: false,
    statements: [],
  };
}

/**
 * Folds one event into the run's state. Pure and total: it enforces no rule
 * and never throws (rules belong to `decide`); an event type it does not know
 * leaves the state as it is, so that old code can read newer streams.
 */
export function evolveRun(state: RunState, event: RunEvent): RunState {
  const statement = statementOf(event, state.pendingApproval);
  const facts = evolveFacts(state, event);
  const status = runStatusAfter(state.status, event);
  const next = facts.status === status ? facts : { ...facts, status };
  return statement === null ? next : { ...next, statements: [...state.statements, statement] };
}

/** Everything an event changes but the status (the one status machine, `runStatusAfter`, says that). */
function evolveFacts(state: RunState, event: RunEvent): RunState {
  switch (event.type) {
    case 'RunRequested': {
      const { runId, agent, input, mode, maxIterations, requestedAt, requestedBy, continuation } = event.data;
      const root = continuation?.idempotencyRoot ?? runId;
      let steps = state.steps;
      for (const carried of continuation?.carriedSteps ?? []) steps = withStep(steps, carriedStepRecord(runId, root, carried));
      return { ...state, runId, agent, input, mode, maxIterations, requestedBy, notBefore: requestedAt, idempotencyRoot: root, steps };
    }
    case 'RunClaimed': {
      const { owner, attempt, leaseExpiresAt } = event.data;
      return { ...state, attempt, notBefore: null, lease: { owner, attempt, expiresAt: leaseExpiresAt } };
    }
    case 'LeaseRenewed':
      return state.lease === null ? state : { ...state, lease: { ...state.lease, expiresAt: event.data.leaseExpiresAt } };
    case 'StepStarted': {
      const data = event.data;
      const previous = state.steps.get(data.stepId);
      const step: StepRecord = {
        stepId: data.stepId,
        kind: data.kind,
        round: data.round,
        callIndex: data.callIndex,
        toolName: data.toolName,
        effect: data.effect,
        idempotencyKey: data.idempotencyKey,
        status: 'started',
        starts: (previous?.starts ?? 0) + 1,
      };
      const inFlightWrite: InFlightWrite | null =
        data.effect !== null && isWrite(data.effect) && data.toolName !== null && data.idempotencyKey !== null
          ? {
              stepId: data.stepId,
              toolName: data.toolName,
              effect: data.effect,
              idempotencyKey: data.idempotencyKey,
              startedAt: data.startedAt,
              attempt: data.attempt,
            }
          : state.inFlightWrite;
      const lease = state.lease === null ? null : { ...state.lease, expiresAt: data.leaseExpiresAt };
      return { ...state, steps: withStep(state.steps, step), inFlightWrite, lease };
    }
    case 'ModelResponded': {
      const step = state.steps.get(event.data.stepId);
      if (step === undefined) return state;
      return { ...state, steps: withStep(state.steps, { ...step, status: 'completed', response: event.data.response }) };
    }
    case 'ToolExecuted': {
      const { stepId, outcome, result, error } = event.data;
      const step = state.steps.get(stepId);
      const steps = step === undefined ? state.steps : withStep(state.steps, { ...step, status: 'completed', outcome, result, error });
      const inFlightWrite = state.inFlightWrite?.stepId === stepId ? null : state.inFlightWrite;
      return { ...state, steps, inFlightWrite };
    }
    case 'RunRequeued':
      return { ...state, lease: null, requeues: event.data.requeues, notBefore: event.data.notBefore };
    case 'RunCompleted':
      return settle(state, { status: 'COMPLETED', reason: 'COMPLETED', deadLettered: false });
    case 'RunFailed':
      return settle(state, { status: 'FAILED', reason: event.data.reason, deadLettered: event.data.deadLettered });
    case 'RunCancelled':
      return settle(state, { status: 'CANCELLED', reason: 'CANCELLED', deadLettered: false });
    case 'CancelRequested':
      return { ...state, cancelRequested: true, cancelRequestedBy: event.data.requestedBy };
    case 'RunRequeuedByOperator':
      return { ...state, continuedAs: event.data.continuationRunId, requeuedBy: event.data.requestedBy };
    case 'AuditGapDetected':
      return { ...state, auditGaps: new Set([...state.auditGaps, event.data.stepId]) };
    case 'ApprovalRequested': {
      const { round, calls, onDenial, requestedAt } = event.data;
      return { ...state, lease: null, pendingApproval: { round, calls, onDenial, requestedAt } };
    }
    case 'ToolCallPreApproved':
      return { ...state, approvals: withEntry(state.approvals, event.data.stepId, 'preApproved') };
    case 'ToolEffectConflictRecorded':
      // For the step's readers: no rule needs it (the StepStarted after it carries the effect the step runs with).
      return state;
    case 'ApprovalGranted': {
      let approvals = state.approvals;
      for (const stepId of event.data.stepIds) approvals = withEntry(approvals, stepId, 'granted');
      return { ...resumed(state, event.data.decidedAt), approvals };
    }
    case 'ApprovalDenied': {
      const calls = state.pendingApproval?.calls ?? [];
      let steps = state.steps;
      for (const call of calls.filter((c) => event.data.stepIds.includes(c.stepId))) {
        steps = withStep(steps, deniedStepRecord(state, call, event.data.reason));
      }
      // The denied calls are completed, never executed. With `endRun`, the RunFailed appended with it settles the run.
      return { ...resumed(state, event.data.decidedAt), steps };
    }
    case 'InputRequested': {
      const { stepId, round, callIndex, toolName, prompt, requestedAt } = event.data;
      return { ...state, lease: null, pendingInput: { stepId, round, callIndex, toolName, prompt, requestedAt } };
    }
    case 'InputSubmitted':
      return { ...resumed(state, event.data.submittedAt), inputs: withEntry(state.inputs, event.data.stepId, event.data.input) };
    default:
      return state;
  }
}

/** A step carried from the run a continuation continues, completed under the continuation's own step id. */
function carriedStepRecord(runId: string, root: string, carried: CarriedStep): StepRecord {
  const coordinates = { round: carried.round, callIndex: carried.callIndex ?? undefined };
  const isTool = carried.callIndex !== null;
  return {
    stepId: stepIdFor({ runId, ...coordinates }),
    kind: isTool ? 'tool' : 'llm',
    round: carried.round,
    callIndex: carried.callIndex,
    toolName: carried.toolName,
    effect: carried.effect,
    idempotencyKey: isTool ? idempotencyKeyFor(stepIdFor({ runId: root, ...coordinates })) : null,
    status: 'completed',
    starts: 0,
    ...(carried.response === null ? {} : { response: carried.response }),
    ...(isTool ? { outcome: carried.outcome ?? 'failed', result: carried.result, error: carried.error } : {}),
  };
}

/** A waiting run queued again after a person's decision or input, due at once. */
function resumed(state: RunState, at: number): RunState {
  return { ...state, notBefore: at, pendingApproval: null, pendingInput: null, resumedAfterPause: true };
}

/** A denied call: completed without executing, its result telling the model it was denied. */
function deniedStepRecord(state: RunState, call: ApprovalCall, reason: string | null): StepRecord {
  const root = state.idempotencyRoot ?? state.runId ?? '';
  const round = state.pendingApproval?.round ?? 0;
  return {
    stepId: call.stepId,
    kind: 'tool',
    round,
    callIndex: call.callIndex,
    toolName: call.toolName,
    effect: call.effect,
    idempotencyKey: idempotencyKeyFor(stepIdFor({ runId: root, round, callIndex: call.callIndex })),
    status: 'completed',
    starts: 0,
    outcome: 'failed',
    result: null,
    error: {
      failureClass: 'clientError',
      code: 'APPROVAL_DENIED',
      message: `The call of ${call.toolName} was denied by a person${reason === null ? '' : `: ${reason}`}; it was not executed`,
    },
    denied: true,
  };
}

function withEntry<V>(map: ReadonlyMap<string, V>, key: string, value: V): ReadonlyMap<string, V> {
  const next = new Map(map);
  next.set(key, value);
  return next;
}

function withStep(steps: ReadonlyMap<string, StepRecord>, step: StepRecord): ReadonlyMap<string, StepRecord> {
  const next = new Map(steps);
  next.set(step.stepId, step);
  return next;
}

function settle(state: RunState, settlement: Settlement): RunState {
  return { ...state, settlement, lease: null, notBefore: null, pendingApproval: null, pendingInput: null };
}
