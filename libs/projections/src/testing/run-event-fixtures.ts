import type { ApprovalDecisionRecorded, ApprovalRequirement, AuditRecorded, FailureInfo, InFlightWrite, JsonValue, OnDenial, Principal, RunEvent, TerminationReason, ToolEffect } from '@agent-ledger/domain';
import { apiKeyPrincipal } from '@agent-ledger/domain';

/** The callers of the fixtures' decisions (labels `key:alice`, `key:bob`, `key:dave`). */
export const ALICE = apiKeyPrincipal('alice');
export const BOB = apiKeyPrincipal('bob');
export const DAVE = apiKeyPrincipal('dave');

/** A call put up for approval, in {@link runEvents}' `approvalRequested`. */
export interface FixtureCall {
  readonly callIndex: number;
  readonly toolName: string;
  readonly effect: ToolEffect;
  /** @default 'write' */
  readonly requirement?: ApprovalRequirement;
}

const T0 = Date.UTC(2026, 0, 1);

/** Factories of contract events for one run, with plausible payloads (unit specs only). */
export function runEvents(runId: string, owner = 'worker:host:1') {
  const step = (round: number, callIndex?: number) => (callIndex === undefined ? `${runId}/r${round}/llm` : `${runId}/r${round}/t${callIndex}`);
  const key = (stepId: string) => `agent-ledger:${stepId}`;
  return {
    stepId: step,
    requested: (mode: 'queued' | 'interactive' = 'queued', at = T0): RunEvent => ({
      type: 'RunRequested',
      data: { runId, agent: 'putter', input: 'go', mode, maxIterations: 20, requestedAt: at, requestedBy: ALICE },
    }),
    claimed: (attempt = 1, at = T0 + 1000): RunEvent => ({
      type: 'RunClaimed',
      data: { runId, owner, attempt, leaseExpiresAt: at + 900_000, claimedAt: at },
    }),
    llmStarted: (round: number, attempt = 1, at = T0 + 2000): RunEvent => ({
      type: 'StepStarted',
      data: {
        runId,
        stepId: step(round),
        kind: 'llm',
        round,
        callIndex: null,
        toolName: null,
        effect: null,
        idempotencyKey: null,
        operationDeadlineSeconds: null,
        owner,
        attempt,
        leaseExpiresAt: at + 900_000,
        startedAt: at,
      },
    }),
    responded: (round: number, final: boolean, at = T0 + 3000): RunEvent => ({
      type: 'ModelResponded',
      data: {
        runId,
        stepId: step(round),
        round,
        response: final ? { type: 'final', content: 'done' } : { type: 'toolCalls', calls: [{ toolName: 'test.put', arguments: {} }] },
        respondedAt: at,
      },
    }),
    toolStarted: (round: number, callIndex: number, toolName: string, effect: ToolEffect, attempt = 1, at = T0 + 4000): RunEvent => ({
      type: 'StepStarted',
      data: {
        runId,
        stepId: step(round, callIndex),
        kind: 'tool',
        round,
        callIndex,
        toolName,
        effect,
        idempotencyKey: key(step(round, callIndex)),
        operationDeadlineSeconds: effect === 'READ_ONLY' ? null : 60,
        owner,
        attempt,
        leaseExpiresAt: at + 120_000,
        startedAt: at,
      },
    }),
    /** An MCP tool's effect conflict, recorded right before its step's StepStarted. */
    effectConflict: (round: number, callIndex: number, toolName: string, conflict: { declared: ToolEffect; hinted: ToolEffect; trusted: boolean; effect: ToolEffect }, at = T0 + 4000): RunEvent => ({
      type: 'ToolEffectConflictRecorded',
      data: {
        runId,
        stepId: step(round, callIndex),
        round,
        callIndex,
        toolName,
        server: toolName.split('.')[0] ?? toolName,
        tool: toolName.split('.').slice(1).join('.'),
        ...conflict,
        effectSource: conflict.effect === conflict.declared ? 'declared' : 'hint',
        recordedAt: at,
      },
    }),
    executed: (round: number, callIndex: number, toolName: string, effect: ToolEffect, outcome: 'succeeded' | 'failed' = 'succeeded', attempt = 1, at = T0 + 5000): RunEvent => ({
      type: 'ToolExecuted',
      data: {
        runId,
        stepId: step(round, callIndex),
        round,
        callIndex,
        toolName,
        effect,
        idempotencyKey: key(step(round, callIndex)),
        outcome,
        result: outcome === 'succeeded' ? { ok: true } : null,
        error: outcome === 'failed' ? { failureClass: 'unknown', message: 'boom' } : null,
        attempt,
        executedAt: at,
      },
    }),
    audited: (sequence: number, round: number, callIndex: number | undefined, toolName: string | null, effect: ToolEffect | null, at = T0 + 6000): AuditRecorded => {
      const stepId = step(round, callIndex);
      return {
        type: 'AuditRecorded',
        data: {
          runId,
          stepId,
          sequence,
          kind: callIndex === undefined ? 'llm' : 'tool',
          toolName,
          effect,
          idempotencyKey: callIndex === undefined ? null : key(stepId),
          outcome: callIndex === undefined ? 'responded' : 'succeeded',
          attempt: 1,
          recordedAt: at,
          // Fixtures are not chained: the projections do not verify hashes.
          previousHash: null,
          hash: 'fixture',
        },
      };
    },
    inFlight: (round: number, callIndex: number, toolName: string, effect: ToolEffect, attempt = 1): InFlightWrite => ({
      stepId: step(round, callIndex),
      toolName,
      effect,
      idempotencyKey: key(step(round, callIndex)),
      startedAt: T0 + 4000,
      attempt,
    }),
    requeued: (requeues: number, inFlightWrite: InFlightWrite | null, cause: 'failure' | 'leaseExpired' = 'leaseExpired', at = T0 + 10_000): RunEvent => ({
      type: 'RunRequeued',
      data: {
        runId,
        cause,
        requeues,
        notBefore: at,
        failure: { failureClass: 'connection', message: 'lease expired', code: 'LEASE_EXPIRED' },
        previousOwner: owner,
        inFlightWrite,
        requeuedAt: at,
      },
    }),
    completed: (attempt = 1, at = T0 + 20_000): RunEvent => ({
      type: 'RunCompleted',
      data: { runId, reason: 'COMPLETED', finalAnswer: 'done', attempt, completedAt: at },
    }),
    failed: (reason: TerminationReason, failure: FailureInfo, inFlightWrite: InFlightWrite | null = null, at = T0 + 20_000): RunEvent => ({
      type: 'RunFailed',
      data: { runId, reason, failure, deadLettered: true, attempt: 1, inFlightWrite, failedAt: at },
    }),
    cancelRequested: (at = T0 + 15_000): RunEvent => ({
      type: 'CancelRequested',
      data: { runId, requestedBy: ALICE, reason: null, requestedAt: at },
    }),
    cancelled: (inFlightWrite: InFlightWrite | null = null, at = T0 + 16_000): RunEvent => ({
      type: 'RunCancelled',
      data: { runId, reason: 'CANCELLED', requestedBy: ALICE, inFlightWrite, cancelledAt: at },
    }),
    gap: (round: number, callIndex: number, toolName: string, effect: ToolEffect, runAlreadySettled: boolean, at = T0 + 19_000): RunEvent => ({
      type: 'AuditGapDetected',
      data: { runId, stepId: step(round, callIndex), toolName, effect, detectedBy: 'saga:host:1', runAlreadySettled, detectedAt: at },
    }),
    approvalRequested: (round: number, calls: readonly FixtureCall[], onDenial: OnDenial = 'endRun', at = T0 + 7000): RunEvent => ({
      type: 'ApprovalRequested',
      data: {
        runId,
        round,
        calls: calls.map((c) => ({
          stepId: step(round, c.callIndex),
          callIndex: c.callIndex,
          toolName: c.toolName,
          effect: c.effect,
          arguments: { value: `v${c.callIndex}` },
          requirement: c.requirement ?? 'write',
        })),
        onDenial,
        owner,
        attempt: 1,
        requestedAt: at,
      },
    }),
    preApproved: (round: number, callIndex: number, toolName: string, effect: ToolEffect, at = T0 + 3500): RunEvent => ({
      type: 'ToolCallPreApproved',
      data: { runId, stepId: step(round, callIndex), round, callIndex, toolName, effect, agent: 'putter', approvedAt: at },
    }),
    granted: (round: number, callIndexes: readonly number[], decidedBy: Principal = ALICE, reason: string | null = 'fine', at = T0 + 8000): RunEvent => ({
      type: 'ApprovalGranted',
      data: { runId, round, stepIds: callIndexes.map((i) => step(round, i)), decidedBy, reason, decidedAt: at },
    }),
    denied: (round: number, callIndexes: readonly number[], onDenial: OnDenial = 'endRun', decidedBy: Principal = BOB, reason: string | null = 'no', at = T0 + 8000): RunEvent => ({
      type: 'ApprovalDenied',
      data: { runId, round, stepIds: callIndexes.map((i) => step(round, i)), decidedBy, reason, onDenial, decidedAt: at },
    }),
    inputRequested: (round: number, callIndex: number, toolName = 'test.ask', at = T0 + 7000): RunEvent => ({
      type: 'InputRequested',
      data: { runId, stepId: step(round, callIndex), round, callIndex, toolName, prompt: 'Which ticket?', owner, attempt: 1, requestedAt: at },
    }),
    inputSubmitted: (round: number, callIndex: number, input: JsonValue = { ticket: 'T-7' }, at = T0 + 8000): RunEvent => ({
      type: 'InputSubmitted',
      data: { runId, stepId: step(round, callIndex), input, submittedBy: DAVE, submittedAt: at },
    }),
    decisionRecorded: (sequence: number, round: number, decision: 'approved' | 'denied', calls: readonly FixtureCall[], at = T0 + 7900): ApprovalDecisionRecorded => ({
      type: 'ApprovalDecisionRecorded',
      data: {
        runId,
        round,
        sequence,
        decision,
        calls: calls.map((c) => ({ stepId: step(round, c.callIndex), toolName: c.toolName, effect: c.effect, argumentsHash: 'fixture' })),
        decidedBy: decision === 'approved' ? ALICE : BOB,
        reason: null,
        recordedAt: at,
        previousHash: null,
        hash: 'fixture',
      },
    }),
  };
}
