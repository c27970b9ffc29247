import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { DecideApproval, DecisionStatement, InFlightWriteResolution, JsonValue, Principal, RunMode, RunState, SubmitInput } from '@agent-ledger/domain';
import { assertRunId, continuationOf, InvalidFieldError, MAX_ITERATIONS, RunAlreadyRequeuedError, runEventStatementKey, statementKey } from '@agent-ledger/domain';
import { AuditStatementNotStoredError } from './audit-statement-not-stored.error';
import type { Clock } from '../clock/clock';
import { CLOCK } from '../clock/clock';
import type { AgentCatalog } from '../segment/agent-catalog';
import { AGENT_CATALOG } from '../segment/agent-catalog';
import { DispatchRunCommand, RecordDecisionStatementCommand } from '../persistence/commands';
import { QueueIndex } from '../queue/queue-index';
import type { RunCommandOutcome } from '../persistence/run-command-processor';
import { RunCommandProcessor } from '../persistence/run-command-processor';
import { RuntimeMetrics } from '../metrics/runtime-metrics';
import type { SegmentOutcome } from '../segment/segment-runner';
import { SegmentRunner } from '../segment/segment-runner';
import { newSegmentOwner } from '../segment/segment-identity';

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

/**
 * A person's decision that took effect on the run: the run as it stands
 * after it, and whether the decision's statement is in the run's audit chain
 * (`recorded`) or could not be stored yet (`pending`: it is stored before
 * anything the decision allows happens, or the run fails closed).
 */
export interface DecisionTaken {
  readonly state: RunState;
  readonly auditStatement: 'recorded' | 'pending';
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
  private readonly logger = new Logger(RunService.name);
  constructor(
    private readonly commandBus: CommandBus,
    private readonly segments: SegmentRunner,
    private readonly processor: RunCommandProcessor,
    private readonly index: QueueIndex,
    @Inject(AGENT_CATALOG) private readonly agents: AgentCatalog,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly metrics: RuntimeMetrics,
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
   * is required.
   *
   * The requeue takes effect on the run first (one of concurrent requeues
   * wins; the others are refused `RUN_ALREADY_REQUEUED`); then the
   * resolution's statement, derived from the recorded requeue, is stored in
   * the run's audit chain, and only then is the continuation started.
   *
   * Repeating a requeue that was recorded but whose continuation was not (a
   * crash in between, or a statement that could not be stored) completes it:
   * the statement first (late), then the continuation, with the resolution the
   * run recorded. A repeat that states another resolution is refused.
   *
   * @throws RunNotFoundError, RunNotDeadLetteredError, RunAlreadyRequeuedError, InFlightWriteUnresolvedError, InvalidFieldError,
   *   AuditStatementNotStoredError (the requeue is recorded, its continuation not started: repeat it)
   */
  async requeue(runId: string, request: RequeueRequest): Promise<{ readonly continuationRunId: string; readonly state: RunState }> {
    const snapshot = await this.processor.load(runId);
    const recorded = snapshot.state.continuedAs;
    if (recorded !== null && (await this.processor.load(recorded)).state.status === null) {
      const resolution = recordedResolution(snapshot.state, recorded);
      const differs =
        request.resolution !== undefined && (resolution === undefined || resolution.outcome !== request.resolution.outcome || resolution.note !== request.resolution.note);
      if (differs) throw new RunAlreadyRequeuedError(runId, recorded);
      await this.stateRequeue(snapshot.state, recorded, 'late');
      return this.startContinuation(snapshot.state, recorded, resolution);
    }
    const continuationRunId = randomUUID();
    const outcome = await this.dispatch(
      new DispatchRunCommand(
        {
          type: 'RequeueRun',
          data: { runId, continuationRunId, requestedBy: request.requestedBy, reason: request.reason, resolution: request.resolution },
          metadata: { now: this.clock.now() },
        },
        snapshot,
      ),
    );
    if (outcome.decision.kind === 'rejected') throw outcome.decision.error;
    await this.stateRequeue(outcome.state, continuationRunId, 'deferred');
    return this.startContinuation(outcome.state, continuationRunId, recordedResolution(outcome.state, continuationRunId));
  }

  /** Stores the statement of a recorded requeue's resolution, if it has one; throws when it cannot be stored: the continuation must not start. */
  private async stateRequeue(state: RunState, continuationRunId: string, ifNotStored: 'deferred' | 'late'): Promise<void> {
    const statement = state.statements.find((s) => s.kind === 'resolution' && s.data.continuationRunId === continuationRunId);
    if (statement === undefined || statement.kind !== 'resolution') return;
    const recording = await this.recordStatement(statement, ifNotStored);
    if (recording === 'notStored') throw new AuditStatementNotStoredError(statement.data.runId, statement.data.stepId, continuationRunId);
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
   * A person approves or denies the calls a run waits for. The decision takes
   * effect on the run first: of concurrent decisions (and cancels) exactly one
   * wins, the others are refused. Approved, the run is queued again and a
   * worker resumes it; denied, the calls never execute and the model is told,
   * or the run ends `APPROVAL_DENIED`, as the agent says.
   *
   * Then its statement, derived from the recorded decision, is stored in the
   * run's audit chain. If that fails, the decision still stands
   * (`auditStatement: 'pending'`): the segment that resumes the run stores it
   * before anything else, and fails the run closed if it cannot; a run that
   * settled with the decision gets it from the audit-gap saga.
   *
   * @throws RunNotFoundError, RunAlreadySettledError, RunNotWaitingError (not waiting, or already decided), ApprovalRoundMismatchError, InvalidFieldError
   */
  async decideApproval(runId: string, request: ApprovalDecisionRequest): Promise<DecisionTaken> {
    const command: DecideApproval = {
      type: 'DecideApproval',
      data: { runId, decision: request.decision, decidedBy: request.decidedBy, reason: request.reason, round: request.round },
      metadata: { now: this.clock.now() },
    };
    return this.decide(command);
  }

  /**
   * Submits the input a waiting run's tool asked for; the run is queued
   * again and a worker resumes it, calling the tool with the input once the
   * answer's statement is stored in the audit chain (as for an approval).
   *
   * @throws RunNotFoundError, RunAlreadySettledError, RunNotWaitingError, InvalidFieldError
   */
  async submitInput(runId: string, submission: InputSubmission): Promise<DecisionTaken> {
    return this.decide({ type: 'SubmitInput', data: { runId, input: submission.input, submittedBy: submission.submittedBy }, metadata: { now: this.clock.now() } });
  }

  /** A person's decision: on the run first, then its statement in the audit chain. */
  private async decide(command: DecideApproval | SubmitInput): Promise<DecisionTaken> {
    const outcome = await this.dispatch(new DispatchRunCommand(command));
    if (outcome.decision.kind === 'rejected') throw outcome.decision.error;
    let auditStatement: DecisionTaken['auditStatement'] = 'recorded';
    for (const event of outcome.appended) {
      const key = runEventStatementKey(event);
      const statement = key === null ? undefined : outcome.state.statements.find((s) => statementKey(s) === key);
      if (statement !== undefined && (await this.recordStatement(statement, 'deferred')) === 'notStored') auditStatement = 'pending';
    }
    this.index.changes.notify();
    return { state: outcome.state, auditStatement };
  }

  /** Records a statement; a statement not stored is logged and counted (`deferred`: right after its decision; `late`: by a repeat). */
  private async recordStatement(statement: DecisionStatement, ifNotStored: 'deferred' | 'late') {
    const recording = await this.commandBus.execute(new RecordDecisionStatementCommand(statement, this.clock.now()));
    if (recording === 'notStored') {
      this.metrics.incrementLabelled('decisionStatements', { kind: statement.kind, outcome: ifNotStored === 'deferred' ? 'deferred' : 'failed' });
      this.logger.warn(`The statement of ${statementKey(statement)} of run ${statement.data.runId} was not stored; the decision stands, and nothing it allows happens before it is`);
    } else if (ifNotStored === 'late' && recording === 'stored') {
      this.metrics.incrementLabelled('decisionStatements', { kind: statement.kind, outcome: 'late' });
      this.logger.warn(`The statement of ${statementKey(statement)} of run ${statement.data.runId} was stored late`);
    }
    return recording;
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

/** The resolution a recorded requeue states for its continuation, as the run holds it. */
function recordedResolution(state: RunState, continuationRunId: string): InFlightWriteResolution | undefined {
  const statement = state.statements.find((s) => s.kind === 'resolution' && s.data.continuationRunId === continuationRunId);
  return statement?.kind === 'resolution' ? { outcome: statement.data.outcome, note: statement.data.note } : undefined;
}
