import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { DecideApproval, InFlightWriteResolution, JsonValue, Principal, RunDecider, RunMode, RunState } from '@agent-ledger/domain';
import { assertRunId, canonicalJson, continuationOf, InvalidFieldError, MAX_ITERATIONS } from '@agent-ledger/domain';
import { createHash } from 'node:crypto';
import { AuditStatementNotStoredError } from './audit-statement-not-stored.error';
import type { Clock } from '../clock/clock';
import { CLOCK } from '../clock/clock';
import type { AgentCatalog } from './agent-catalog';
import { AGENT_CATALOG } from './agent-catalog';
import { ApprovalDecisionNotStoredError } from './approval-decision-not-stored.error';
import { DispatchRunCommand, RecordApprovalDecisionCommand, RecordWriteResolutionCommand } from './commands';
import { RUN_DECIDER } from './run-decider.token';
import { QueueIndex } from './queue-index';
import type { RunCommandOutcome } from './run-command-processor';
import { RunCommandProcessor } from './run-command-processor';
import type { SegmentOutcome } from './segment-runner';
import { SegmentRunner } from './segment-runner';
import { newSegmentOwner } from './segment-identity';

/** A request to run an agent. */
export interface RunRequest {
  /** The agent's name, as configured. */
  readonly agent: string;
  /** The task, as JSON (a string is shown to the model as is). */
  readonly input: JsonValue;
  /** @default a random UUID */
  readonly runId?: string;
}

/** An operator's requeue of a dead-lettered run. */
export interface RequeueRequest {
  /** Who requeues: the authenticated caller (recorded, and in the audit trail with a resolution). */
  readonly requestedBy: Principal;
  /** The caller's own words, if any: never who acted. */
  readonly reason?: string;
  /** Required when a `NON_IDEMPOTENT_WRITE` was in flight: whether it was executed, and how that is known. */
  readonly resolution?: InFlightWriteResolution;
}

/** A person's decision on the calls a run waits to have approved. */
export interface ApprovalDecisionRequest {
  readonly decision: 'approve' | 'deny';
  /** Who decides: the authenticated caller (recorded, and in the audit trail). */
  readonly decidedBy: Principal;
  readonly reason?: string;
  /** The round the person saw: a decision on another (later) request is refused. */
  readonly round?: number;
}

/** Input a person submits to a run whose tool asked for it. */
export interface InputSubmission {
  readonly input: JsonValue;
  /** Who submits: the authenticated caller (recorded). */
  readonly submittedBy: Principal;
}

/** The result of an interactive run: the run as settled, and how its segment ended. */
export interface InteractiveRunResult {
  readonly runId: string;
  readonly state: RunState;
  readonly segment: SegmentOutcome;
}

/**
 * Starts, enqueues and cancels runs. Every write goes through the CommandBus
 * to the run's decider.
 */
@Injectable()
export class RunService {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly segments: SegmentRunner,
    private readonly processor: RunCommandProcessor,
    private readonly index: QueueIndex,
    @Inject(AGENT_CATALOG) private readonly agents: AgentCatalog,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(RUN_DECIDER) private readonly decider: RunDecider,
  ) {}

  /**
   * Runs an agent interactively: records the request, claims it with a lease
   * of this caller's own, executes it here, and returns it settled, or
   * waiting for a person (approval or input: a worker resumes it after the
   * decision). A failure settles it `FAILED`; it is never retried. A run
   * cancelled before this caller could claim it is returned settled, as it is.
   */
  async runInteractive(request: RunRequest): Promise<InteractiveRunResult> {
    const runId = await this.request(request, 'interactive');
    const owner = newSegmentOwner('interactive');
    const claim = await this.dispatch(new DispatchRunCommand({ type: 'ClaimRun', data: { runId, owner }, metadata: { now: this.clock.now() } }));
    // A cancel that landed between the request and the claim wins: the caller gets the cancelled run, not an error.
    if (claim.decision.kind === 'rejected' && claim.state.status === 'CANCELLED') {
      return { runId, state: claim.state, segment: { kind: 'settled', state: claim.state } };
    }
    if (claim.decision.kind !== 'accepted') {
      throw claim.decision.kind === 'rejected' ? claim.decision.error : new Error(`Run ${runId} could not be claimed`);
    }
    const segment = await this.segments.run(claim, { owner, attempt: claim.state.attempt });
    const settled = segment.kind === 'leaseLost' || segment.kind === 'abandoned' ? (await this.processor.load(runId)).state : segment.state;
    return { runId, state: settled, segment };
  }

  /** Records a queued run; a worker executes it. Returns its id. */
  async enqueue(request: RunRequest): Promise<string> {
    const runId = await this.request(request, 'queued');
    this.index.changes.notify();
    return runId;
  }

  /**
   * Asks to cancel a run: a queued run is cancelled at once, a running one at
   * its segment's next step boundary.
   *
   * `requestedBy` is the authenticated caller; `reason` the caller's own words.
   *
   * @throws RunNotFoundError, RunAlreadySettledError
   */
  async cancel(runId: string, requestedBy: Principal, reason?: string): Promise<RunState> {
    const outcome = await this.dispatch(
      new DispatchRunCommand({ type: 'RequestCancel', data: { runId, requestedBy, reason }, metadata: { now: this.clock.now() } }),
    );
    if (outcome.decision.kind === 'rejected') throw outcome.decision.error;
    return outcome.state;
  }

  /**
   * An operator requeues a dead-lettered run: the run stays settled, and a
   * continuation run (queued at once) carries its completed steps and its
   * idempotency keys. With a `NON_IDEMPOTENT_WRITE` in flight, `resolution`
   * is required; it is recorded in the run's audit trail before anything else,
   * and the requeue is refused if it cannot be.
   *
   * Repeating a requeue that was recorded but whose continuation was not
   * (a crash in between) completes it.
   *
   * @throws RunNotFoundError, RunNotDeadLetteredError, RunAlreadyRequeuedError, InFlightWriteUnresolvedError, InvalidFieldError
   */
  async requeue(runId: string, request: RequeueRequest): Promise<{ readonly continuationRunId: string; readonly state: RunState }> {
    const snapshot = await this.processor.load(runId);
    if (snapshot.state.continuedAs !== null && (await this.processor.load(snapshot.state.continuedAs)).state.status === null) {
      return this.startContinuation(snapshot.state, snapshot.state.continuedAs, request.resolution);
    }
    const command = {
      type: 'RequeueRun' as const,
      data: { runId, continuationRunId: randomUUID(), requestedBy: request.requestedBy, reason: request.reason, resolution: request.resolution },
      metadata: { now: this.clock.now() },
    };
    // Decide before writing anything, so a refused requeue leaves no statement in the audit trail.
    const preview = this.decider.decide(command, snapshot.state);
    if (preview.kind === 'rejected') throw preview.error;
    const inFlight = snapshot.state.inFlightWrite;
    if (request.resolution !== undefined && inFlight !== null) {
      const stored = await this.commandBus.execute(
        new RecordWriteResolutionCommand(
          {
            runId,
            stepId: inFlight.stepId,
            toolName: inFlight.toolName,
            effect: inFlight.effect,
            idempotencyKey: inFlight.idempotencyKey,
            outcome: request.resolution.outcome,
            note: request.resolution.note,
            resolvedBy: request.requestedBy,
            continuationRunId: command.data.continuationRunId,
          },
          this.clock.now(),
        ),
      );
      if (!stored) throw new AuditStatementNotStoredError(runId, inFlight.stepId);
    }
    const outcome = await this.dispatch(new DispatchRunCommand(command, snapshot));
    if (outcome.decision.kind === 'rejected') throw outcome.decision.error;
    return this.startContinuation(outcome.state, outcome.state.continuedAs ?? command.data.continuationRunId, request.resolution);
  }

  private async startContinuation(state: RunState, continuationRunId: string, resolution: InFlightWriteResolution | undefined) {
    const outcome = await this.dispatch(
      new DispatchRunCommand({ type: 'RequestRun', data: continuationOf(state, continuationRunId, resolution), metadata: { now: this.clock.now() } }),
    );
    if (outcome.decision.kind === 'rejected' && outcome.decision.error.code !== 'RUN_ALREADY_EXISTS') throw outcome.decision.error;
    this.index.changes.notify();
    return { continuationRunId, state: outcome.state };
  }

  /**
   * A person approves or denies the calls a run waits for. The decision is
   * stored in the run's audit trail first (its hash chain), and refused if it
   * cannot be; then it takes effect on the run: approved, the run is queued
   * again and a worker resumes it; denied, the calls never execute and the
   * model is told, or the run ends `APPROVAL_DENIED`, as the agent says.
   *
   * @throws RunNotFoundError, RunAlreadySettledError, RunNotWaitingError (not waiting, or already decided), ApprovalRoundMismatchError, InvalidFieldError, ApprovalDecisionNotStoredError
   */
  async decideApproval(runId: string, request: ApprovalDecisionRequest): Promise<RunState> {
    const snapshot = await this.processor.load(runId);
    const command: DecideApproval = {
      type: 'DecideApproval',
      data: { runId, decision: request.decision, decidedBy: request.decidedBy, reason: request.reason, round: request.round },
      metadata: { now: this.clock.now() },
    };
    // Decide before writing anything, so a refused decision leaves no statement in the audit trail.
    const preview = this.decider.decide(command, snapshot.state);
    if (preview.kind === 'rejected') throw preview.error;
    const pending = snapshot.state.pendingApproval;
    if (pending === null) throw new Error(`Run ${runId} was accepted for a decision without a pending approval`);
    const stored = await this.commandBus.execute(
      new RecordApprovalDecisionCommand(
        {
          runId,
          round: pending.round,
          decision: request.decision === 'approve' ? 'approved' : 'denied',
          calls: pending.calls.map((call) => ({
            stepId: call.stepId,
            toolName: call.toolName,
            effect: call.effect,
            argumentsHash: createHash('sha256').update(canonicalJson(call.arguments)).digest('hex'),
          })),
          decidedBy: request.decidedBy,
          reason: request.reason ?? null,
        },
        this.clock.now(),
      ),
    );
    if (!stored) throw new ApprovalDecisionNotStoredError(runId, pending.round);
    const outcome = await this.dispatch(new DispatchRunCommand(command, snapshot));
    // A concurrent decision won the race after the preview: the audit trail then holds both statements, the run only the first.
    if (outcome.decision.kind === 'rejected') throw outcome.decision.error;
    this.index.changes.notify();
    return outcome.state;
  }

  /**
   * Submits the input a waiting run's tool asked for; the run is queued
   * again and a worker resumes it, calling the tool with the input.
   *
   * @throws RunNotFoundError, RunAlreadySettledError, RunNotWaitingError, InvalidFieldError
   */
  async submitInput(runId: string, submission: InputSubmission): Promise<RunState> {
    const outcome = await this.dispatch(
      new DispatchRunCommand({
        type: 'SubmitInput',
        data: { runId, input: submission.input, submittedBy: submission.submittedBy },
        metadata: { now: this.clock.now() },
      }),
    );
    if (outcome.decision.kind === 'rejected') throw outcome.decision.error;
    this.index.changes.notify();
    return outcome.state;
  }

  /** The run as its stream tells it now. */
  async get(runId: string): Promise<RunState> {
    return (await this.processor.load(runId)).state;
  }

  private async request(request: RunRequest, mode: RunMode): Promise<string> {
    const agent = this.agents.get(request.agent);
    if (agent === undefined) {
      throw new InvalidFieldError('agent', `must name a configured agent (known: ${this.agents.names().join(', ') || 'none'})`);
    }
    const runId = request.runId ?? randomUUID();
    assertRunId(runId);
    const outcome = await this.dispatch(
      new DispatchRunCommand({
        type: 'RequestRun',
        data: { runId, agent: request.agent, input: request.input, mode, maxIterations: Math.min(agent.definition.maxIterations, MAX_ITERATIONS) },
        metadata: { now: this.clock.now() },
      }),
    );
    if (outcome.decision.kind === 'rejected') throw outcome.decision.error;
    return runId;
  }

  private dispatch(command: DispatchRunCommand): Promise<RunCommandOutcome> {
    return this.commandBus.execute(command);
  }
}
