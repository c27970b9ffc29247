import { Injectable } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { InFlightWriteResolution, JsonValue, Principal, RunState } from '@agent-ledger/domain';
import { RunCommandProcessor } from '../persistence/run-command-processor';
import { CancelRun } from './cancel-run.command';
import { DecideRunApproval } from './decide-run-approval.command';
import type { DecideRunApprovalResult } from './decide-run-approval.command';
import { RequeueDeadLetteredRun } from './requeue-dead-lettered-run.command';
import type { RequeueDeadLetteredRunResult } from './requeue-dead-lettered-run.command';
import { StartRun } from './start-run.command';
import type { InteractiveStartResult, StartMode, StartRunFields } from './start-run.command';
import { SubmitRunInput } from './submit-run-input.command';
import type { SubmitRunInputResult } from './submit-run-input.command';

/** A request to run an agent. */
export interface RunRequest {
  /** The agent's name, as configured. */
  readonly agent: string;
  /** The task, as JSON (a string is shown to the model as is). */
  readonly input: JsonValue;
  /** @default a random UUID */
  readonly runId?: string;
  /** Who starts it: the authenticated caller (recorded with the request, and in the audit trail). */
  readonly requestedBy: Principal;
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
 * Method calls for the public commands: each method sends one command on the
 * `CommandBus` (validated, then handled by its one handler) and resolves to
 * its result, so a caller that prefers a service to the bus gets the same
 * rules, errors and records. `get` reads the run's stream.
 */
@Injectable()
export class RunService {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly processor: RunCommandProcessor,
  ) {}

  /**
   * Runs an agent interactively ({@link StartRun}, `mode: 'interactive'`):
   * resolves with the run settled, or waiting for a person (a worker resumes
   * it after the decision).
   */
  async runInteractive(request: RunRequest): Promise<InteractiveStartResult> {
    const result = await this.commandBus.execute(new StartRun(startFields(request, 'interactive')));
    if (result.mode !== 'interactive') throw new Error(`StartRun answered an interactive run ${result.runId} as ${result.mode}`);
    return result;
  }

  /** Records a queued run ({@link StartRun}, `mode: 'queued'`); a worker executes it. Resolves to its id. */
  async enqueue(request: RunRequest): Promise<string> {
    return (await this.commandBus.execute(new StartRun(startFields(request, 'queued')))).runId;
  }

  /**
   * Asks to cancel a run ({@link CancelRun}); resolves to the run after the request.
   * @throws RunNotFoundError, RunAlreadySettledError
   */
  async cancel(runId: string, requestedBy: Principal, reason?: string): Promise<RunState> {
    return (await this.commandBus.execute(new CancelRun({ runId, principal: requestedBy, reason }))).state;
  }

  /**
   * Requeues a dead-lettered run as a continuation run ({@link RequeueDeadLetteredRun}).
   * @throws RunNotFoundError, RunNotDeadLetteredError, RunAlreadyRequeuedError, InFlightWriteUnresolvedError, AuditStatementNotStoredError
   */
  requeue(runId: string, request: RequeueRequest): Promise<RequeueDeadLetteredRunResult> {
    const { requestedBy, reason, resolution } = request;
    return this.commandBus.execute(new RequeueDeadLetteredRun({ runId, principal: requestedBy, reason, resolution }));
  }

  /**
   * Approves or denies the calls a run waits for ({@link DecideRunApproval}).
   * @throws RunNotFoundError, RunAlreadySettledError, RunNotWaitingError, ApprovalRoundMismatchError
   */
  decideApproval(runId: string, request: ApprovalDecisionRequest): Promise<DecideRunApprovalResult> {
    const { decision, decidedBy, reason, round } = request;
    return this.commandBus.execute(new DecideRunApproval({ runId, decision, principal: decidedBy, reason, round }));
  }

  /**
   * Submits the input a waiting run's tool asked for ({@link SubmitRunInput}).
   * @throws RunNotFoundError, RunAlreadySettledError, RunNotWaitingError
   */
  submitInput(runId: string, submission: InputSubmission): Promise<SubmitRunInputResult> {
    return this.commandBus.execute(new SubmitRunInput({ runId, input: submission.input, principal: submission.submittedBy }));
  }

  /** The run as its stream tells it now; a run never requested has `status` null (`GetRunState` refuses it instead). */
  async get(runId: string): Promise<RunState> {
    return (await this.processor.load(runId)).state;
  }
}

function startFields(request: RunRequest, mode: StartMode): StartRunFields {
  return { agent: request.agent, input: request.input, mode, runId: request.runId, principal: request.requestedBy };
}
