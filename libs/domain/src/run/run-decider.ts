import type { Decider } from '../decider';
import { InvalidFieldError } from '../errors/invalid-field.error';
import {
  ApprovalRequiredError,
  ApprovalRoundMismatchError,
  InFlightWriteUnresolvedError,
  NonIdempotentWriteReplayError,
  RunAlreadyRequeuedError,
  RunNotDeadLetteredError,
  RunAlreadyExistsError,
  RunAlreadySettledError,
  RunNotClaimableError,
  RunNotFoundError,
  RunNotReapableError,
  RunNotWaitingError,
  StepAlreadyCompletedError,
  StepNotStartedError,
  WriteInFlightError,
} from '../errors/run-rule-violations';
import { isFailureClass, isRetryable } from '../failure/failure-class';
import { MAX_ITERATIONS } from '../limits';
import { assertPrincipal, principalLabel } from '../principal/principal';
import { stricterEffect } from '../tool-effect/external-tool-effect';
import { isToolEffect, isWrite, ToolEffect } from '../tool-effect/tool-effect';
import { retryDelayMs } from './retry-backoff';
import type {
  ApprovalCallRequest,
  ClaimRun,
  CompleteRun,
  DecideApproval,
  FailRun,
  ReapRun,
  RecordModelResponse,
  RecordPreApproval,
  RecordToolExecution,
  RenewLease,
  ReportAuditGap,
  RequestApproval,
  RequestCancel,
  RequestInput,
  RequestRun,
  RequeueRun,
  RunCommand,
  SegmentLease,
  StartStep,
  SubmitInput,
  ToolEffectConflict,
} from './run-commands';
import type { RunDecision } from './run-decision';
import { accepted, rejected } from '../decision';
import type { ApprovalCall, FailureInfo, RunContinuation, RunEvent, ToolCallRequest } from './run-events';
import type { RunPolicy, RunPolicyOptions } from './run-policy';
import { resolveRunPolicy } from './run-policy';
import type { RunState } from './run-state';
import { evolveRun, initialRunState } from './run-state';
import { isTerminalStatus } from './run-status';
import { parseSegmentOwner, SegmentKind, segmentKindFor } from './segment-owner';
import { assertRunId, assertStepIndex, idempotencyKeyFor, stepIdFor } from './step-id';
import type { TerminationReason } from './termination-reason';
import { DEAD_LETTER_REASONS, DELIBERATE_FAILURE_REASONS } from './termination-reason';

/** The run's decider: its whole lifecycle, as pure functions. */
export type RunDecider = Decider<RunCommand, RunState, RunEvent, RunDecision>;

/**
 * Builds the run decider for a policy (lease length, backoff). Read this file
 * to learn the lifecycle of a run:
 *
 * ```
 * RequestRun ─▶ QUEUED ─ClaimRun▶ RUNNING ─CompleteRun▶ COMPLETED
 *                 ▲                 │ ├──FailRun / ReapRun──▶ FAILED (deliberate, dead letter)
 *                 └──── RunRequeued ◀┘ └──RequestCancel + next boundary──▶ CANCELLED
 * ```
 *
 * A running run may pause for a person (`RequestApproval`, `RequestInput`:
 * `WAITING_FOR_APPROVAL` / `WAITING_FOR_INPUT`, no lease); a decision or
 * input queues it again (`DecideApproval`, `SubmitInput`), and a worker
 * resumes it.
 *
 * Every segment command names its lease; a segment that lost it gets
 * `leaseLost` and must stop. Once a cancel is requested, the next terminal
 * event is `RunCancelled`, except an audit failure, which always fails the run.
 */
export function createRunDecider(options: RunPolicyOptions = {}): RunDecider {
  const policy = resolveRunPolicy(options);
  return {
    decide: (command, state) => decideRun(command, state, policy),
    evolve: evolveRun,
    initialState: initialRunState,
  };
}

/** Decides a run command against the run's state under `policy`. Pure: time comes from `command.metadata.now`. */
export function decideRun(command: RunCommand, state: RunState, policy: RunPolicy): RunDecision {
  try {
    assertRunId(command.data.runId, 'data.runId');
    assertTime(command.metadata.now);
    switch (command.type) {
      case 'RequestRun':
        return requestRun(command, state);
      case 'ClaimRun':
        return claimRun(command, state, policy);
      case 'RenewLease':
        return renewLease(command, state, policy);
      case 'StartStep':
        return startStep(command, state, policy);
      case 'RecordModelResponse':
        return recordModelResponse(command, state);
      case 'RecordToolExecution':
        return recordToolExecution(command, state);
      case 'CompleteRun':
        return completeRun(command, state);
      case 'FailRun':
        return failRun(command, state, policy);
      case 'RequestCancel':
        return requestCancel(command, state);
      case 'ReapRun':
        return reapRun(command, state, policy);
      case 'ReportAuditGap':
        return reportAuditGap(command, state);
      case 'RequeueRun':
        return requeueRun(command, state);
      case 'RequestApproval':
        return requestApproval(command, state);
      case 'RecordPreApproval':
        return recordPreApproval(command, state);
      case 'DecideApproval':
        return decideApproval(command, state);
      case 'RequestInput':
        return requestInput(command, state);
      case 'SubmitInput':
        return submitInput(command, state);
    }
  } catch (error) {
    if (error instanceof InvalidFieldError) {
      return rejected(error);
    }
    throw error;
  }
}

// ── Requesting and claiming ─────────────────────────────────────────────────

function requestRun({ data, metadata }: RequestRun, state: RunState): RunDecision {
  if (state.status !== null) return rejected(new RunAlreadyExistsError(data.runId));
  if (typeof data.agent !== 'string' || data.agent.trim().length === 0) {
    throw new InvalidFieldError('data.agent', 'must be a non-empty string');
  }
  if (data.mode !== 'interactive' && data.mode !== 'queued') {
    throw new InvalidFieldError('data.mode', 'must be "interactive" or "queued"');
  }
  if (data.input === undefined) throw new InvalidFieldError('data.input', 'must be JSON data');
  assertPrincipal(data.requestedBy, 'data.requestedBy');
  const maxIterations = data.maxIterations ?? MAX_ITERATIONS;
  if (!Number.isSafeInteger(maxIterations) || maxIterations < 1 || maxIterations > MAX_ITERATIONS) {
    throw new InvalidFieldError('data.maxIterations', `must be an integer from 1 to ${MAX_ITERATIONS}`);
  }
  if (data.continuation !== undefined) assertContinuation(data.continuation);
  return accepted({
    type: 'RunRequested',
    data: {
      runId: data.runId,
      agent: data.agent,
      input: data.input,
      mode: data.mode,
      maxIterations,
      requestedAt: metadata.now,
      requestedBy: data.requestedBy,
      ...(data.continuation === undefined ? {} : { continuation: data.continuation }),
    },
  });
}

/**
 * Claim only when queued and due, and only by the kind of segment the run's
 * mode names (a worker, for a run resumed after waiting for a person).
 */
function claimRun({ data, metadata }: ClaimRun, state: RunState, policy: RunPolicy): RunDecision {
  const owner = parseSegmentOwner(data.owner, 'data.owner');
  if (state.status === null || state.mode === null) return rejected(new RunNotFoundError(data.runId));
  // After a pause for a person the caller of an interactive run is gone: a worker resumes it (never retried all the same).
  const kind = state.resumedAfterPause ? SegmentKind.WORKER : segmentKindFor(state.mode);
  if (owner.kind !== kind) {
    return rejected(new RunNotClaimableError(data.runId, 'wrongSegmentKind', state.status, state.notBefore));
  }
  if (state.status !== 'QUEUED') {
    return rejected(new RunNotClaimableError(data.runId, 'notQueued', state.status, null));
  }
  if (state.notBefore !== null && state.notBefore > metadata.now) {
    return rejected(new RunNotClaimableError(data.runId, 'notDue', state.status, state.notBefore));
  }
  return accepted({
    type: 'RunClaimed',
    data: {
      runId: data.runId,
      owner: data.owner,
      attempt: state.attempt + 1,
      leaseExpiresAt: metadata.now + policy.leaseSeconds * 1000,
      claimedAt: metadata.now,
    },
  });
}

// ── The segment's step boundaries ───────────────────────────────────────────

/**
 * A renewal that lands after the lease expired still succeeds while nobody
 * reaped the run: a slow worker is not a dead worker (the reaper's append,
 * made against the revision it read, then fails).
 */
function renewLease(command: RenewLease, state: RunState, policy: RunPolicy): RunDecision {
  const { data, metadata } = command;
  const lost = leaseCheck(state, data);
  if (lost !== null) return lost;
  if (state.cancelRequested) return accepted(cancelled(state, metadata.now));
  return accepted({
    type: 'LeaseRenewed',
    data: {
      runId: data.runId,
      owner: data.owner,
      attempt: data.attempt,
      leaseExpiresAt: Math.max(state.lease?.expiresAt ?? 0, metadata.now + policy.leaseSeconds * 1000),
      renewedAt: metadata.now,
    },
  });
}

/**
 * Start a step, renewing the lease in the same event. For a write, `StepStarted`
 * is the write fence: the in-flight record, with a lease that covers the tool's
 * operation deadline plus a margin. A completed step is never started again,
 * and a non-idempotent write that was started once is never started again.
 */
function startStep({ data, metadata }: StartStep, state: RunState, policy: RunPolicy): RunDecision {
  const lost = leaseCheck(state, data);
  if (lost !== null) return lost;
  if (state.cancelRequested) return accepted(cancelled(state, metadata.now));
  assertStepIndex(data.round, 'data.round');
  if (data.callIndex !== undefined) assertStepIndex(data.callIndex, 'data.callIndex');
  if (data.round >= state.maxIterations) {
    throw new InvalidFieldError('data.round', `must be below the run's maxIterations (${state.maxIterations})`);
  }
  const isTool = data.callIndex !== undefined;
  if (isTool !== (data.tool !== undefined)) {
    throw new InvalidFieldError('data.tool', 'must be given exactly when callIndex is (a tool step)');
  }
  const stepId = stepIdFor({ runId: data.runId, round: data.round, callIndex: data.callIndex });
  const previous = state.steps.get(stepId);
  if (previous?.status === 'completed') return rejected(new StepAlreadyCompletedError(data.runId, stepId));
  if (state.inFlightWrite !== null && state.inFlightWrite.stepId !== stepId) {
    return rejected(new WriteInFlightError(data.runId, state.inFlightWrite.stepId));
  }
  const leaseFloor = metadata.now + policy.leaseSeconds * 1000;
  const base = { runId: data.runId, stepId, round: data.round, owner: data.owner, attempt: data.attempt, startedAt: metadata.now };
  if (data.tool === undefined || data.callIndex === undefined) {
    return accepted({
      type: 'StepStarted',
      data: {
        ...base,
        kind: 'llm',
        callIndex: null,
        toolName: null,
        effect: null,
        idempotencyKey: null,
        operationDeadlineSeconds: null,
        leaseExpiresAt: leaseFloor,
      },
    });
  }
  const { name, effect } = data.tool;
  if (typeof name !== 'string' || name.length === 0) throw new InvalidFieldError('data.tool.name', 'must be a non-empty string');
  if (!isToolEffect(effect)) throw new InvalidFieldError('data.tool.effect', 'must be READ_ONLY, IDEMPOTENT_WRITE or NON_IDEMPOTENT_WRITE');
  const recordedEffect = previous?.effect ?? effect;
  if (previous !== undefined && (effect === ToolEffect.NON_IDEMPOTENT_WRITE || recordedEffect === ToolEffect.NON_IDEMPOTENT_WRITE)) {
    return rejected(new NonIdempotentWriteReplayError(data.runId, stepId));
  }
  const deadline = isWrite(effect) ? operationDeadline(data.tool.operationDeadlineSeconds, policy) : null;
  let preApproved: RunEvent | null = null;
  if (data.tool.preApprovedBy !== undefined) {
    if (data.tool.refused === true) throw new InvalidFieldError('data.tool.preApprovedBy', 'must not be given for a refused call');
    const at = { runId: data.runId, stepId, round: data.round, callIndex: data.callIndex, toolName: name, effect, agent: data.tool.preApprovedBy };
    preApproved = preApprovalOf(at, { effect: 'data.tool.effect', agent: 'data.tool.preApprovedBy' }, state, metadata.now);
  }
  let conflict: RunEvent | null = null;
  if (data.tool.effectConflict !== undefined) {
    if (data.tool.refused === true) throw new InvalidFieldError('data.tool.effectConflict', 'must not be given for a refused call');
    conflict = effectConflictOf({ runId: data.runId, stepId, round: data.round, callIndex: data.callIndex, toolName: name, effect }, data.tool.effectConflict, metadata.now);
  }
  if (isWrite(effect) && data.tool.refused !== true && !state.approvals.has(stepId) && preApproved === null) {
    return rejected(new ApprovalRequiredError(data.runId, stepId));
  }
  const leaseExpiresAt =
    deadline === null ? leaseFloor : Math.max(leaseFloor, metadata.now + (deadline + policy.writeLeaseMarginSeconds) * 1000);
  const fence: RunEvent = {
    type: 'StepStarted',
    data: {
      ...base,
      kind: 'tool',
      callIndex: data.callIndex,
      toolName: name,
      effect,
      // A continuation names its keys after the first run of its chain: a retried write gets the same key.
      idempotencyKey: idempotencyKeyFor(stepIdFor({ runId: state.idempotencyRoot ?? data.runId, round: data.round, callIndex: data.callIndex })),
      operationDeadlineSeconds: deadline,
      leaseExpiresAt: Math.max(leaseExpiresAt, state.lease?.expiresAt ?? 0),
    },
  };
  // A pre-approved write: its pre-approval and its fence in one append, in that order; an effect conflict right before the fence.
  if (conflict === null) return preApproved === null ? accepted(fence) : accepted(preApproved, fence);
  return preApproved === null ? accepted(conflict, fence) : accepted(preApproved, conflict, fence);
}

/**
 * The `ToolEffectConflictRecorded` of a step's start. Throws, naming the
 * field, for a conflict that is not one (the same effect declared and
 * hinted) or an effect that is not the one the rule gives: the hints when
 * trusted, else the stricter of the two.
 */
function effectConflictOf(
  at: { readonly runId: string; readonly stepId: string; readonly round: number; readonly callIndex: number; readonly toolName: string; readonly effect: ToolEffect },
  conflict: ToolEffectConflict,
  now: number,
): RunEvent {
  const field = 'data.tool.effectConflict';
  if (typeof conflict !== 'object' || conflict === null) throw new InvalidFieldError(field, 'must be an object');
  const { server, tool, declared, hinted, trusted } = conflict;
  if (typeof server !== 'string' || server.length === 0) throw new InvalidFieldError(`${field}.server`, 'must be a non-empty string');
  if (typeof tool !== 'string' || tool.length === 0) throw new InvalidFieldError(`${field}.tool`, 'must be a non-empty string');
  if (!isToolEffect(declared)) throw new InvalidFieldError(`${field}.declared`, 'must be READ_ONLY, IDEMPOTENT_WRITE or NON_IDEMPOTENT_WRITE');
  if (!isToolEffect(hinted)) throw new InvalidFieldError(`${field}.hinted`, 'must be READ_ONLY, IDEMPOTENT_WRITE or NON_IDEMPOTENT_WRITE');
  if (hinted === declared) throw new InvalidFieldError(`${field}.hinted`, 'must differ from the declared effect: the same effect is no conflict');
  if (typeof trusted !== 'boolean') throw new InvalidFieldError(`${field}.trusted`, 'must be a boolean');
  const resolved = trusted ? hinted : stricterEffect(declared, hinted);
  if (at.effect !== resolved) throw new InvalidFieldError('data.tool.effect', `must be ${resolved}: the effect ${trusted ? 'trusted hints give' : 'the stricter of the declaration and the hints'}`);
  return {
    type: 'ToolEffectConflictRecorded',
    data: {
      runId: at.runId,
      stepId: at.stepId,
      round: at.round,
      callIndex: at.callIndex,
      toolName: at.toolName,
      server,
      tool,
      declared,
      hinted,
      trusted,
      effect: resolved,
      effectSource: resolved === declared ? 'declared' : 'hint',
      recordedAt: now,
    },
  };
}

/** A repeated report of a completed step is accepted and changes nothing. */
function recordModelResponse({ data, metadata }: RecordModelResponse, state: RunState): RunDecision {
  const lost = leaseCheck(state, data);
  if (lost !== null) return lost;
  assertStepIndex(data.round, 'data.round');
  const stepId = stepIdFor({ runId: data.runId, round: data.round });
  const step = state.steps.get(stepId);
  if (step === undefined) return rejected(new StepNotStartedError(data.runId, stepId));
  if (step.status === 'completed') return accepted();
  const { response } = data;
  if (response?.type === 'final') {
    if (typeof response.content !== 'string') throw new InvalidFieldError('data.response.content', 'must be a string');
  } else if (response?.type === 'toolCalls') {
    if (!Array.isArray(response.calls) || response.calls.length === 0) {
      throw new InvalidFieldError('data.response.calls', 'must be a non-empty array');
    }
    response.calls.forEach((call, index) => {
      if (typeof call.toolName !== 'string' || call.toolName.length === 0) {
        throw new InvalidFieldError(`data.response.calls[${index}].toolName`, 'must be a non-empty string');
      }
    });
  } else {
    throw new InvalidFieldError('data.response.type', 'must be "final" or "toolCalls"');
  }
  return accepted({ type: 'ModelResponded', data: { runId: data.runId, stepId, round: data.round, response, respondedAt: metadata.now } });
}

/** The effect recorded at the step's start is authoritative for its result. */
function recordToolExecution({ data, metadata }: RecordToolExecution, state: RunState): RunDecision {
  const lost = leaseCheck(state, data);
  if (lost !== null) return lost;
  assertStepIndex(data.round, 'data.round');
  assertStepIndex(data.callIndex, 'data.callIndex');
  const stepId = stepIdFor({ runId: data.runId, round: data.round, callIndex: data.callIndex });
  const step = state.steps.get(stepId);
  if (step === undefined || step.toolName === null || step.effect === null || step.idempotencyKey === null) {
    return rejected(new StepNotStartedError(data.runId, stepId));
  }
  if (step.status === 'completed') return accepted();
  if (data.outcome !== 'succeeded' && data.outcome !== 'failed') {
    throw new InvalidFieldError('data.outcome', 'must be "succeeded" or "failed"');
  }
  if (data.outcome === 'failed') assertFailureInfo(data.error, 'data.error');
  return accepted({
    type: 'ToolExecuted',
    data: {
      runId: data.runId,
      stepId,
      round: data.round,
      callIndex: data.callIndex,
      toolName: step.toolName,
      effect: step.effect,
      idempotencyKey: step.idempotencyKey,
      outcome: data.outcome,
      result: data.outcome === 'succeeded' ? (data.result ?? null) : null,
      error: data.outcome === 'failed' ? (data.error ?? null) : null,
      attempt: data.attempt,
      executedAt: metadata.now,
    },
  });
}

// ── Settling ────────────────────────────────────────────────────────────────

/** Cancel wins over a late completion. */
function completeRun({ data, metadata }: CompleteRun, state: RunState): RunDecision {
  const lost = leaseCheck(state, data);
  if (lost !== null) return lost;
  if (state.cancelRequested) return accepted(cancelled(state, metadata.now));
  if (state.inFlightWrite !== null) return rejected(new WriteInFlightError(data.runId, state.inFlightWrite.stepId));
  if (typeof data.finalAnswer !== 'string') throw new InvalidFieldError('data.finalAnswer', 'must be a string');
  return accepted({
    type: 'RunCompleted',
    data: { runId: data.runId, reason: 'COMPLETED', finalAnswer: data.finalAnswer, attempt: state.attempt, completedAt: metadata.now },
  });
}

/**
 * The failure rules, in order:
 * 1. a write whose audit failed fails the run as not retryable, even after a cancel request;
 * 2. otherwise a requested cancel wins;
 * 3. a deliberate reason ends the run with it;
 * 4. a non-idempotent write in flight ends it (`WRITE_INTERRUPTED`): it never runs twice;
 * 5. an interactive run is never retried;
 * 6. a queued run is requeued with backoff while its class is retryable and its
 *    budget lasts; otherwise it is dead-lettered.
 */
function failRun({ data, metadata }: FailRun, state: RunState, policy: RunPolicy): RunDecision {
  const lost = leaseCheck(state, data);
  if (lost !== null) return lost;
  assertFailureInfo(data.error, 'data.error');
  if (data.retryAfterMs !== undefined && (typeof data.retryAfterMs !== 'number' || !Number.isFinite(data.retryAfterMs) || data.retryAfterMs < 0)) {
    throw new InvalidFieldError('data.retryAfterMs', 'must be a non-negative number of milliseconds, or absent');
  }
  const { reason, error } = data;
  if (reason !== undefined && !DELIBERATE_FAILURE_REASONS.has(reason) && reason !== 'PROVIDER_FAILED') {
    throw new InvalidFieldError('data.reason', `must be one of ${[...DELIBERATE_FAILURE_REASONS, 'PROVIDER_FAILED'].join(', ')}, or absent`);
  }
  if (reason === 'AUDIT_PERSISTENCE_FAILED') return accepted(failed(state, reason, error, metadata.now));
  if (state.cancelRequested) return accepted(cancelled(state, metadata.now));
  if (reason !== undefined && DELIBERATE_FAILURE_REASONS.has(reason)) return accepted(failed(state, reason, error, metadata.now));
  return accepted(retryOrDeadLetter(state, error, 'failure', reason, metadata.now, policy, data.retryAfterMs));
}

/**
 * The reaper takes back a running run whose lease expired. It loses to a
 * renewal: if the stream it decides on shows a later expiry, it is refused.
 */
function reapRun({ data, metadata }: ReapRun, state: RunState, policy: RunPolicy): RunDecision {
  if (state.status === null) return rejected(new RunNotFoundError(data.runId));
  if (state.status === 'QUEUED' && state.mode === 'interactive' && !state.resumedAfterPause) return reapUnclaimedInteractive(data, metadata.now, state, policy);
  if (state.status !== 'RUNNING' || state.lease === null) {
    return rejected(new RunNotReapableError(data.runId, state.status, null));
  }
  if (state.lease.expiresAt > metadata.now) {
    return rejected(new RunNotReapableError(data.runId, state.status, state.lease.expiresAt));
  }
  if (state.cancelRequested) return accepted(cancelled(state, metadata.now));
  // A lost segment counts as a connection failure: the process, not the run, failed.
  const failure: FailureInfo = {
    failureClass: 'connection',
    code: 'LEASE_EXPIRED',
    message: `The lease of ${state.lease.owner} (attempt ${state.lease.attempt}) expired at ${state.lease.expiresAt}; reaped by ${data.reaper}`,
  };
  return accepted(retryOrDeadLetter(state, failure, 'leaseExpired', undefined, metadata.now, policy));
}

/**
 * An interactive run is claimed by its caller right after its request. One
 * still unclaimed a whole lease later lost its caller (a process died between
 * the two appends): nobody else may execute it, so it fails, never retried.
 */
function reapUnclaimedInteractive(data: ReapRun['data'], now: number, state: RunState, policy: RunPolicy): RunDecision {
  const claimBy = (state.notBefore ?? 0) + policy.leaseSeconds * 1000;
  if (claimBy > now) return rejected(new RunNotReapableError(data.runId, 'QUEUED', claimBy));
  if (state.cancelRequested) return accepted(cancelled(state, now));
  const failure: FailureInfo = {
    failureClass: 'connection',
    code: 'INTERACTIVE_CALLER_LOST',
    message: `Interactive run ${data.runId} was never claimed by its caller (due by ${claimBy}); reaped by ${data.reaper}`,
  };
  return accepted(failed(state, 'NOT_RETRYABLE', failure, now));
}

function requestCancel({ data, metadata }: RequestCancel, state: RunState): RunDecision {
  if (state.status === null) return rejected(new RunNotFoundError(data.runId));
  if (isTerminalStatus(state.status)) return rejected(new RunAlreadySettledError(data.runId, state.status));
  assertPrincipal(data.requestedBy, 'data.requestedBy');
  if (data.reason !== undefined && typeof data.reason !== 'string') throw new InvalidFieldError('data.reason', 'must be a string');
  if (state.cancelRequested) return accepted();
  const request: RunEvent = {
    type: 'CancelRequested',
    data: { runId: data.runId, requestedBy: data.requestedBy, reason: data.reason ?? null, requestedAt: metadata.now },
  };
  if (state.status === 'RUNNING') return accepted(request);
  // Nobody executes the run now: the cancel settles it at once.
  return accepted(request, cancelled({ ...state, cancelRequestedBy: data.requestedBy }, metadata.now));
}

/**
 * A write without its audit event. Recorded once per step; an unsettled run
 * fails as not retryable (`AUDIT_MISSING`), even if a cancel was requested.
 */
function reportAuditGap({ data, metadata }: ReportAuditGap, state: RunState): RunDecision {
  if (state.status === null) return rejected(new RunNotFoundError(data.runId));
  if (state.auditGaps.has(data.stepId)) return accepted();
  const step = state.steps.get(data.stepId);
  if (step === undefined || step.status !== 'completed' || step.effect === null || step.toolName === null || !isWrite(step.effect)) {
    throw new InvalidFieldError('data.stepId', 'must name an executed write step of the run');
  }
  const settled = isTerminalStatus(state.status);
  const gap: RunEvent = {
    type: 'AuditGapDetected',
    data: {
      runId: data.runId,
      stepId: data.stepId,
      toolName: step.toolName,
      effect: step.effect,
      detectedBy: data.detectedBy,
      runAlreadySettled: settled,
      detectedAt: metadata.now,
    },
  };
  if (settled) return accepted(gap);
  const failure: FailureInfo = {
    failureClass: 'unknown',
    code: 'AUDIT_MISSING',
    message: `Write step ${data.stepId} (${step.toolName}, ${step.effect}) has no audit event`,
  };
  return accepted(gap, failed(state, 'AUDIT_MISSING', failure, metadata.now));
}

/**
 * An operator requeues a dead-lettered run. The run stays settled (a run is
 * settled once); the event names the continuation run, which the caller then
 * requests with `continuationOf(state, ...)`. A non-idempotent write in flight
 * is never retried blindly: the operator must state whether it happened.
 */
function requeueRun({ data, metadata }: RequeueRun, state: RunState): RunDecision {
  if (state.status === null) return rejected(new RunNotFoundError(data.runId));
  if (state.settlement === null || state.settlement.status !== 'FAILED' || !state.settlement.deadLettered) {
    return rejected(new RunNotDeadLetteredError(data.runId, state.status));
  }
  if (state.continuedAs !== null) return rejected(new RunAlreadyRequeuedError(data.runId, state.continuedAs));
  assertRunId(data.continuationRunId, 'data.continuationRunId');
  if (data.continuationRunId === data.runId) throw new InvalidFieldError('data.continuationRunId', 'must differ from the run requeued');
  assertPrincipal(data.requestedBy, 'data.requestedBy');
  const inFlight = state.inFlightWrite;
  if (data.resolution !== undefined) {
    if (inFlight === null) throw new InvalidFieldError('data.resolution', 'is only for a run with a write in flight');
    if (data.resolution.outcome !== 'executed' && data.resolution.outcome !== 'notExecuted') {
      throw new InvalidFieldError('data.resolution.outcome', 'must be "executed" or "notExecuted"');
    }
    if (typeof data.resolution.note !== 'string' || data.resolution.note.trim().length === 0) {
      throw new InvalidFieldError('data.resolution.note', 'must say how the outcome of the write is known');
    }
  } else if (inFlight?.effect === ToolEffect.NON_IDEMPOTENT_WRITE) {
    return rejected(new InFlightWriteUnresolvedError(data.runId, inFlight.stepId, inFlight.toolName));
  }
  return accepted({
    type: 'RunRequeuedByOperator',
    data: {
      runId: data.runId,
      continuationRunId: data.continuationRunId,
      requestedBy: data.requestedBy,
      reason: data.reason ?? null,
      inFlightWrite: inFlight,
      resolution: data.resolution ?? null,
      requeuedAt: metadata.now,
    },
  });
}

// ── Waiting for a person ────────────────────────────────────────────────────

/**
 * Pause for approval of a round's calls, before any of them executes. The
 * calls' names and arguments are the ones the model's recorded answer gave.
 * The run gives up its lease: nobody executes it while it waits.
 */
function requestApproval({ data, metadata }: RequestApproval, state: RunState): RunDecision {
  const lost = leaseCheck(state, data);
  if (lost !== null) return lost;
  if (state.cancelRequested) return accepted(cancelled(state, metadata.now));
  const asked = roundCalls(state, data.runId, data.round);
  if (data.onDenial !== 'tellModel' && data.onDenial !== 'endRun') throw new InvalidFieldError('data.onDenial', 'must be "tellModel" or "endRun"');
  if (!Array.isArray(data.calls) || data.calls.length === 0) throw new InvalidFieldError('data.calls', 'must list at least one call');
  if (state.inFlightWrite !== null) return rejected(new WriteInFlightError(data.runId, state.inFlightWrite.stepId));
  const seen = new Set<number>();
  const calls: ApprovalCall[] = data.calls.map((call: ApprovalCallRequest, i) => {
    const field = `data.calls[${i}]`;
    assertStepIndex(call.callIndex, `${field}.callIndex`);
    const request = asked[call.callIndex];
    if (request === undefined) throw new InvalidFieldError(`${field}.callIndex`, `must name one of the round's ${asked.length} calls`);
    if (seen.has(call.callIndex)) throw new InvalidFieldError(`${field}.callIndex`, 'must not repeat a call');
    seen.add(call.callIndex);
    if (!isToolEffect(call.effect)) throw new InvalidFieldError(`${field}.effect`, 'must be READ_ONLY, IDEMPOTENT_WRITE or NON_IDEMPOTENT_WRITE');
    if (call.requirement !== 'write' && call.requirement !== 'tool') throw new InvalidFieldError(`${field}.requirement`, 'must be "write" or "tool"');
    if (call.requirement === 'write' && !isWrite(call.effect)) throw new InvalidFieldError(`${field}.requirement`, 'is "write" only for a write');
    const stepId = stepIdFor({ runId: data.runId, round: data.round, callIndex: call.callIndex });
    if (state.steps.has(stepId)) throw new InvalidFieldError(`${field}.callIndex`, 'must name a call that has not started');
    if (state.approvals.has(stepId)) throw new InvalidFieldError(`${field}.callIndex`, 'must name a call that is not approved yet');
    return { stepId, callIndex: call.callIndex, toolName: request.toolName, effect: call.effect, arguments: request.arguments, requirement: call.requirement };
  });
  return accepted({
    type: 'ApprovalRequested',
    data: { runId: data.runId, round: data.round, calls, onDenial: data.onDenial, owner: data.owner, attempt: data.attempt, requestedAt: metadata.now },
  });
}

/**
 * The agent's configuration pre-approves a write about to execute; recorded
 * once per step. Like `StartStep`, it trusts the segment for the tool's name.
 * A segment sends the pre-approval with the write's fence instead
 * (`StartStep` with `tool.preApprovedBy`): one append.
 */
function recordPreApproval({ data, metadata }: RecordPreApproval, state: RunState): RunDecision {
  const lost = leaseCheck(state, data);
  if (lost !== null) return lost;
  if (state.cancelRequested) return accepted(cancelled(state, metadata.now));
  assertStepIndex(data.round, 'data.round');
  assertStepIndex(data.callIndex, 'data.callIndex');
  if (typeof data.toolName !== 'string' || data.toolName.length === 0) throw new InvalidFieldError('data.toolName', 'must be a non-empty string');
  const stepId = stepIdFor({ runId: data.runId, round: data.round, callIndex: data.callIndex });
  const event = preApprovalOf({ ...data, stepId }, { effect: 'data.effect', agent: 'data.agent' }, state, metadata.now);
  return event === null ? accepted() : accepted(event);
}

/**
 * The `ToolCallPreApproved` of a call, or null when the step is approved
 * already (recorded once per step). Throws, naming `fields`, for an effect
 * that is not a write or an agent that is not the run's.
 */
function preApprovalOf(
  at: { readonly runId: string; readonly stepId: string; readonly round: number; readonly callIndex: number; readonly toolName: string; readonly effect: ToolEffect; readonly agent: string },
  fields: { readonly effect: string; readonly agent: string },
  state: RunState,
  now: number,
): RunEvent | null {
  if (!isToolEffect(at.effect) || !isWrite(at.effect)) throw new InvalidFieldError(fields.effect, 'must be a write effect: only writes are pre-approved');
  if (typeof at.agent !== 'string' || at.agent !== state.agent) throw new InvalidFieldError(fields.agent, "must be the run's agent");
  if (state.approvals.has(at.stepId)) return null;
  const { runId, stepId, round, callIndex, toolName, effect, agent } = at;
  return { type: 'ToolCallPreApproved', data: { runId, stepId, round, callIndex, toolName, effect, agent, approvedAt: now } };
}

/**
 * A person's decision on the calls a run waits for. One decision per request:
 * a second one finds the run no longer waiting and is refused. A denial with
 * `endRun` fails the run `APPROVAL_DENIED` in the same append.
 */
function decideApproval({ data, metadata }: DecideApproval, state: RunState): RunDecision {
  if (state.status === null) return rejected(new RunNotFoundError(data.runId));
  if (isTerminalStatus(state.status)) return rejected(new RunAlreadySettledError(data.runId, state.status));
  const pending = state.pendingApproval;
  if (state.status !== 'WAITING_FOR_APPROVAL' || pending === null) return rejected(new RunNotWaitingError(data.runId, 'approval', state.status));
  if (data.decision !== 'approve' && data.decision !== 'deny') throw new InvalidFieldError('data.decision', 'must be "approve" or "deny"');
  assertPrincipal(data.decidedBy, 'data.decidedBy');
  if (data.reason !== undefined && typeof data.reason !== 'string') throw new InvalidFieldError('data.reason', 'must be a string');
  if (data.round !== undefined) {
    assertStepIndex(data.round, 'data.round');
    if (data.round !== pending.round) return rejected(new ApprovalRoundMismatchError(data.runId, data.round, pending.round));
  }
  const decision = { runId: data.runId, round: pending.round, stepIds: pending.calls.map((c) => c.stepId), decidedBy: data.decidedBy, reason: data.reason ?? null, decidedAt: metadata.now };
  if (data.decision === 'approve') return accepted({ type: 'ApprovalGranted', data: decision });
  const denial: RunEvent = { type: 'ApprovalDenied', data: { ...decision, onDenial: pending.onDenial } };
  if (pending.onDenial === 'tellModel') return accepted(denial);
  const failure: FailureInfo = {
    failureClass: 'clientError',
    code: 'APPROVAL_DENIED',
    message: `${principalLabel(data.decidedBy)} denied ${pending.calls.map((c) => c.toolName).join(', ')}${data.reason === undefined ? '' : `: ${data.reason}`}`,
  };
  return accepted(denial, failed(state, 'APPROVAL_DENIED', failure, metadata.now));
}

/** A read-only tool asks the user for input; the run waits, holding no lease, and the tool runs again with it. */
function requestInput({ data, metadata }: RequestInput, state: RunState): RunDecision {
  const lost = leaseCheck(state, data);
  if (lost !== null) return lost;
  if (state.cancelRequested) return accepted(cancelled(state, metadata.now));
  assertStepIndex(data.round, 'data.round');
  assertStepIndex(data.callIndex, 'data.callIndex');
  const stepId = stepIdFor({ runId: data.runId, round: data.round, callIndex: data.callIndex });
  const step = state.steps.get(stepId);
  if (step === undefined || step.kind !== 'tool' || step.toolName === null) return rejected(new StepNotStartedError(data.runId, stepId));
  if (step.status === 'completed') return rejected(new StepAlreadyCompletedError(data.runId, stepId));
  if (step.effect !== ToolEffect.READ_ONLY) throw new InvalidFieldError('data.callIndex', 'must name a read-only tool: a write never waits in flight');
  if (typeof data.prompt !== 'string' || data.prompt.trim().length === 0) throw new InvalidFieldError('data.prompt', 'must be a non-empty string');
  return accepted({
    type: 'InputRequested',
    data: {
      runId: data.runId,
      stepId,
      round: data.round,
      callIndex: data.callIndex,
      toolName: step.toolName,
      prompt: data.prompt,
      owner: data.owner,
      attempt: data.attempt,
      requestedAt: metadata.now,
    },
  });
}

/** The input a waiting run's tool asked for; the run is queued again. */
function submitInput({ data, metadata }: SubmitInput, state: RunState): RunDecision {
  if (state.status === null) return rejected(new RunNotFoundError(data.runId));
  if (isTerminalStatus(state.status)) return rejected(new RunAlreadySettledError(data.runId, state.status));
  const pending = state.pendingInput;
  if (state.status !== 'WAITING_FOR_INPUT' || pending === null) return rejected(new RunNotWaitingError(data.runId, 'input', state.status));
  if (data.input === undefined) throw new InvalidFieldError('data.input', 'must be JSON data');
  assertPrincipal(data.submittedBy, 'data.submittedBy');
  return accepted({
    type: 'InputSubmitted',
    data: { runId: data.runId, stepId: pending.stepId, input: data.input, submittedBy: data.submittedBy, submittedAt: metadata.now },
  });
}

/** The tool calls the model asked for in `round`, as recorded. */
function roundCalls(state: RunState, runId: string, round: number): readonly ToolCallRequest[] {
  assertStepIndex(round, 'data.round');
  const response = state.steps.get(stepIdFor({ runId, round }))?.response;
  if (response?.type !== 'toolCalls') throw new InvalidFieldError('data.round', 'must be a round whose model answer asked for tool calls');
  return response.calls;
}

// ── Shared rules ────────────────────────────────────────────────────────────

/** Null when the sender holds the run's lease; otherwise the decision that tells it the lease is lost. */
function leaseCheck(state: RunState, lease: SegmentLease & { readonly runId: string }): RunDecision | null {
  if (state.status === null || state.runId === null) return rejected(new RunNotFoundError(lease.runId));
  const holds = state.status === 'RUNNING' && state.lease !== null && state.lease.owner === lease.owner && state.lease.attempt === lease.attempt;
  return holds ? null : { kind: 'leaseLost', runId: state.runId, status: state.status, currentOwner: state.lease?.owner ?? null };
}

/**
 * Rules 4 to 6 of {@link failRun}, shared with the reaper: the retry budget
 * counts failure retries and stale reclaims together.
 */
function retryOrDeadLetter(
  state: RunState,
  failure: FailureInfo,
  cause: 'failure' | 'leaseExpired',
  hint: TerminationReason | undefined,
  now: number,
  policy: RunPolicy,
  retryAfterMs?: number,
): RunEvent {
  const inFlight = state.inFlightWrite;
  if (inFlight?.effect === ToolEffect.NON_IDEMPOTENT_WRITE) return failed(state, 'WRITE_INTERRUPTED', failure, now);
  if (state.mode === 'interactive') return failed(state, hint === 'PROVIDER_FAILED' ? hint : 'NOT_RETRYABLE', failure, now);
  if (!isRetryable(failure.failureClass)) return failed(state, 'NOT_RETRYABLE', failure, now);
  if (state.requeues >= policy.maxRequeues) return failed(state, 'RETRIES_EXHAUSTED', failure, now);
  // A stale reclaim is due at once; a failure retry waits its backoff, or the dependency's Retry-After when longer.
  const delay = cause === 'failure' ? retryDelayMs(state.requeues, policy, retryAfterMs) : 0;
  return {
    type: 'RunRequeued',
    data: {
      runId: requireRunId(state),
      cause,
      requeues: state.requeues + 1,
      notBefore: now + delay,
      failure,
      previousOwner: state.lease?.owner ?? '',
      inFlightWrite: inFlight,
      requeuedAt: now,
    },
  };
}

function failed(state: RunState, reason: TerminationReason, failure: FailureInfo, now: number): RunEvent {
  return {
    type: 'RunFailed',
    data: {
      runId: requireRunId(state),
      reason,
      failure,
      deadLettered: state.mode === 'queued' && DEAD_LETTER_REASONS.has(reason),
      attempt: state.attempt,
      inFlightWrite: state.inFlightWrite,
      failedAt: now,
    },
  };
}

function cancelled(state: RunState, now: number): RunEvent {
  return {
    type: 'RunCancelled',
    data: {
      runId: requireRunId(state),
      reason: 'CANCELLED',
      // Only a CancelRequested leads here, and it names who asked; a state without it would be a bug, recorded as nobody known.
      requestedBy: state.cancelRequestedBy ?? { kind: 'unverified', name: 'unknown' },
      inFlightWrite: state.inFlightWrite,
      cancelledAt: now,
    },
  };
}

function operationDeadline(declared: number | undefined, policy: RunPolicy): number {
  if (declared === undefined) return policy.defaultWriteOperationDeadlineSeconds;
  if (!Number.isFinite(declared) || declared <= 0) {
    throw new InvalidFieldError('data.tool.operationDeadlineSeconds', 'must be a positive number of seconds');
  }
  return declared;
}

function assertFailureInfo(error: FailureInfo | undefined, field: string): void {
  if (error === undefined || typeof error !== 'object' || error === null) throw new InvalidFieldError(field, 'must describe the failure');
  if (!isFailureClass(error.failureClass)) throw new InvalidFieldError(`${field}.failureClass`, 'must be one of the eight failure classes');
  if (typeof error.message !== 'string') throw new InvalidFieldError(`${field}.message`, 'must be a string');
}

function assertContinuation(continuation: RunContinuation): void {
  assertRunId(continuation.of, 'data.continuation.of');
  assertRunId(continuation.idempotencyRoot, 'data.continuation.idempotencyRoot');
  if (!Array.isArray(continuation.carriedSteps)) throw new InvalidFieldError('data.continuation.carriedSteps', 'must be an array');
  continuation.carriedSteps.forEach((step, i) => {
    assertStepIndex(step.round, `data.continuation.carriedSteps[${i}].round`);
    if (step.callIndex !== null) assertStepIndex(step.callIndex, `data.continuation.carriedSteps[${i}].callIndex`);
  });
}

function assertTime(now: unknown): void {
  if (typeof now !== 'number' || !Number.isSafeInteger(now) || now < 0) {
    throw new InvalidFieldError('metadata.now', 'must be milliseconds since the Unix epoch');
  }
}

function requireRunId(state: RunState): string {
  if (state.runId === null) throw new Error('A settled or requeued run always has an id');
  return state.runId;
}
