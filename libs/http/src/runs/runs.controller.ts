import type { ServerResponse } from 'node:http';
import { Body, Controller, Get, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiAcceptedResponse, ApiBadRequestResponse, ApiConflictResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { RunStatus } from '@agent-ledger/domain';
import { assertRunId, RunNotFoundError } from '@agent-ledger/domain';
import type { RunStepsAnswer } from '@agent-ledger/client';
import type { RunPage, RunStatusRow } from '@agent-ledger/projections';
import { ProjectionQueries, ProjectionRunnerPool } from '@agent-ledger/projections';
import type { DecideRunApprovalResult, SubmitRunInputResult } from '@agent-ledger/runtime';
import { CancelRun, DecideRunApproval, RequeueDeadLetteredRun, StartRun, SubmitRunInput } from '@agent-ledger/runtime';
import type { ApiCaller } from '../auth/api-caller';
import { Caller, mayUseAgent } from '../auth/api-caller';
import { NotEntitledError } from '../auth/auth.errors';
import { ApiStoreFaults } from '../openapi/store-faults.decorator';
import { RequireScope } from '../auth/auth.decorators';
import { replyJson } from '../json-reply';
import { listEntitledRuns } from './entitled-runs';
import type { CancelRunAnswer, RequeueRunAccepted, RunResumeAnswer, StartRunAccepted, StartRunInteractive } from './run-answers';
import { CancelRunDto, DecideApprovalDto, ListRunsQueryDto, RequeueRunDto, StartRunDto, SubmitInputDto } from './run-dtos';
import { runViewOf } from './run-view';

/**
 * How long a read of one run waits, when the read models do not have it, for
 * them to apply what the store holds: a run whose start was acknowledged is
 * never answered 404 because its `RunRequested` was not projected yet.
 */
export const RUN_READ_MISS_WAIT_MS = 2_000;

/** The requeue's own 503. */
const REQUEUE_UNAVAILABLE =
  'the requeue is recorded, but its statement could not be stored in the audit trail (`AUDIT_STATEMENT_NOT_STORED`, with `continuationRunId`): the continuation is not started; repeat the requeue to complete it';

/** The decision's own 503. */
const DECISION_UNAVAILABLE =
  'the run store could not take the decision (`STORE_UNAVAILABLE`, `Retry-After`): nothing was decided. A decision whose audit statement could not be stored is a 200 with `auditStatement: pending`';

/** The steps of a run, from the steps read model (the client's contract's type). */
export type { RunStepsAnswer } from '@agent-ledger/client';

/** The answer of a decision or an input: the run as its own stream tells it after the command. */
function resumeAnswerOf(runId: string, { state, auditStatement }: DecideRunApprovalResult | SubmitRunInputResult): RunResumeAnswer {
  const status: RunStatus | null = state.status;
  if (status === null) throw new RunNotFoundError(runId);
  return { runId, status, run: runViewOf(runId, state), auditStatement };
}

/**
 * `/runs`: start, list, read and cancel runs; approve or deny the calls a run
 * waits for, and answer a run that asked for input. A write sends the bus's
 * public command (`StartRun`, `CancelRun`, `RequeueDeadLetteredRun`,
 * `DecideRunApproval`, `SubmitRunInput`), with the authenticated caller as its
 * principal, to its one handler, as a host or the CLI would; the route maps
 * the request to the command and the command's result to the answer. Reads
 * answer from the read models, which follow the store a little behind.
 */
@ApiTags('runs')
@Controller('runs')
export class RunsController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: ProjectionQueries,
    private readonly runners: ProjectionRunnerPool,
  ) {}

  /** Starts a run: 202 with its id when queued, 200 with the settled run when interactive. */
  @Post()
  @RequireScope('runs:submit')
  @ApiOperation({ summary: 'Start a run (queued: 202; interactive: 200 with the settled run)' })
  @ApiStoreFaults({ appends: true })
  @ApiAcceptedResponse({ description: 'queued: the run is recorded (also a replay of an idempotency key: `replayed: true`)' })
  @ApiOkResponse({ description: 'interactive: the settled run, as its stream tells it' })
  @ApiBadRequestResponse({ description: 'a refused body (`INVALID_FIELD`, `MALFORMED_JSON`)' })
  @ApiConflictResponse({ description: '`RUN_ALREADY_EXISTS`, `IDEMPOTENCY_KEY_REUSED`' })
  async start(@Body() body: StartRunDto, @Caller() caller: ApiCaller, @Res() response: ServerResponse): Promise<void> {
    const { status, answer, headers } = await this.startFor(body, caller);
    replyJson(response, status, answer, headers);
  }

  /**
   * `POST /runs` for `caller`, a checked body in hand: the status, answer and
   * headers of the route. The MCP endpoint's `start_run` starts runs through
   * it, as the route does.
   */
  async startFor(body: StartRunDto, caller: ApiCaller): Promise<{ status: 200 | 202; answer: StartRunAccepted | StartRunInteractive; headers: Record<string, string> }> {
    if (!mayUseAgent(caller, body.agent)) {
      throw new NotEntitledError(caller.keyId, 'agent', `The API key "${caller.keyId}" may not start runs of agent "${body.agent}" (it is limited to ${caller.agents?.join(', ')})`);
    }
    const { agent, input, mode, runId, idempotencyKey } = body;
    const outcome = await this.commands.execute(new StartRun({ agent, input, mode, runId, idempotencyKey, principal: caller.principal }));
    const headers: Record<string, string> = { Location: `/runs/${encodeURIComponent(outcome.runId)}` };
    if (outcome.replayed) headers['Idempotent-Replayed'] = 'true';
    if (outcome.mode === 'queued') {
      const accepted: StartRunAccepted = { runId: outcome.runId, mode: outcome.mode, status: outcome.status, replayed: outcome.replayed };
      return { status: 202, answer: accepted, headers };
    }
    const answer: StartRunInteractive = { runId: outcome.runId, mode: outcome.mode, replayed: outcome.replayed, segment: outcome.segment, run: runViewOf(outcome.runId, outcome.state) };
    // Read your writes: what the run recorded is in this process's read models before the answer (at most RUN_READ_MISS_WAIT_MS),
    // so that GET /runs/{runId}/steps right after it shows every step it answers for.
    await this.runners.settled(RUN_READ_MISS_WAIT_MS);
    return { status: 200, answer, headers };
  }

  /** Runs, newest first, filtered, a page at a time (a key limited to some agents sees their runs only). */
  @Get()
  @RequireScope('runs:read')
  @ApiOperation({ summary: 'List runs: filters, cursor pages, newest first' })
  @ApiStoreFaults()
  @ApiOkResponse({ description: 'a page of runs; `nextCursor` is null on the last page' })
  @ApiBadRequestResponse({ description: 'a refused query (`INVALID_FIELD`, `INVALID_QUERY`)' })
  list(@Query() query: ListRunsQueryDto, @Caller() caller: ApiCaller): RunPage {
    return caller.agents === null ? this.queries.listRuns(query) : listEntitledRuns(this.queries, query, caller.agents);
  }

  /** One run from the run-status read model. */
  @Get(':runId')
  @RequireScope('runs:read')
  @ApiOperation({ summary: 'One run (run-status read model)' })
  @ApiStoreFaults()
  @ApiOkResponse({ description: 'the run-status row' })
  @ApiBadRequestResponse({ description: 'not a run id (`INVALID_FIELD`)' })
  @ApiNotFoundResponse({ description: 'no such run, or one the key may not read (`RUN_NOT_FOUND`)' })
  async get(@Param('runId') runId: string): Promise<RunStatusRow> {
    assertRunId(runId);
    const row = await this.readRun(() => this.queries.getRun(runId));
    if (row === null) throw new RunNotFoundError(runId);
    return row;
  }

  /** A run's steps from the steps read model. */
  @Get(':runId/steps')
  @RequireScope('runs:read')
  @ApiOperation({ summary: "A run's steps (steps read model)" })
  @ApiStoreFaults()
  @ApiOkResponse({ description: "the run's steps (steps read model)" })
  @ApiBadRequestResponse({ description: 'not a run id (`INVALID_FIELD`)' })
  @ApiNotFoundResponse({ description: 'no such run, or one the key may not read (`RUN_NOT_FOUND`)' })
  async steps(@Param('runId') runId: string): Promise<RunStepsAnswer> {
    assertRunId(runId);
    const found = await this.readRun(() => {
      const steps = this.queries.getSteps(runId);
      return steps.length === 0 && this.queries.getRun(runId) === null ? null : steps;
    });
    if (found === null) throw new RunNotFoundError(runId);
    return { runId, steps: found };
  }

  /**
   * Reads one run from the read models; on a miss, waits for them to apply
   * what the store holds now (at most {@link RUN_READ_MISS_WAIT_MS}) and reads
   * again, so that a run started a moment ago is found. Misses of runs that
   * do not exist pay one read of the store's head.
   */
  private async readRun<T>(read: () => T | null): Promise<T | null> {
    const first = read();
    if (first !== null) return first;
    await this.runners.settled(RUN_READ_MISS_WAIT_MS);
    return read();
  }

  /**
   * Asks to cancel a run: 200 when it is cancelled already (it was queued),
   * 202 when a running segment will stop at its next step boundary. Who asks
   * is the caller (`key:<id>`, `development` without keys); the body only
   * says why (`reason`).
   */
  @Post(':runId/cancel')
  @RequireScope('operate')
  @ApiOperation({ summary: 'Cancel a run; the caller (its key) is recorded as who asked' })
  @ApiStoreFaults({ appends: true })
  @ApiOkResponse({ description: 'cancelled (it was queued)' })
  @ApiAcceptedResponse({ description: 'a running run stops at its next step boundary' })
  @ApiBadRequestResponse({ description: 'a refused body (`INVALID_FIELD`)' })
  @ApiNotFoundResponse({ description: 'no such run, or one the key may not read (`RUN_NOT_FOUND`)' })
  @ApiConflictResponse({ description: 'the run is settled (`RUN_ALREADY_SETTLED`)' })
  async cancel(@Param('runId') runId: string, @Body() body: CancelRunDto, @Caller() caller: ApiCaller, @Res() response: ServerResponse): Promise<void> {
    assertRunId(runId);
    const { state, settled } = await this.commands.execute(new CancelRun({ runId, principal: caller.principal, reason: body.reason }));
    const answer: CancelRunAnswer = { runId, cancelRequested: true, run: runViewOf(runId, state) };
    replyJson(response, settled ? 200 : 202, answer);
  }

  /**
   * An operator requeues a dead-lettered run: it stays FAILED, and a
   * continuation run (202, its id) takes it over with its completed steps and
   * idempotency keys. With a NON_IDEMPOTENT_WRITE in flight the body must
   * state, in `resolution`, whether it was executed (recorded in the audit
   * trail). Who requeues (and states the resolution) is the caller.
   */
  @Post(':runId/requeue')
  @RequireScope('operate')
  @ApiOperation({ summary: 'Requeue a dead-lettered run as a continuation run; the caller (its key) is recorded as who requeued' })
  @ApiStoreFaults({ appends: true, alsoUnavailable: REQUEUE_UNAVAILABLE })
  @ApiAcceptedResponse({ description: 'the continuation run is queued' })
  @ApiBadRequestResponse({ description: 'a refused body (`INVALID_FIELD`)' })
  @ApiNotFoundResponse({ description: 'no such run, or one the key may not read (`RUN_NOT_FOUND`)' })
  @ApiConflictResponse({ description: '`RUN_NOT_DEAD_LETTERED`, `RUN_ALREADY_REQUEUED`, `IN_FLIGHT_WRITE_UNRESOLVED`' })
  async requeue(@Param('runId') runId: string, @Body() body: RequeueRunDto, @Caller() caller: ApiCaller, @Res() response: ServerResponse): Promise<void> {
    assertRunId(runId);
    const { reason, resolution } = body;
    const stated = resolution === undefined ? undefined : { outcome: resolution.outcome, note: resolution.note };
    const { continuationRunId } = await this.commands.execute(new RequeueDeadLetteredRun({ runId, principal: caller.principal, reason, resolution: stated }));
    const accepted: RequeueRunAccepted = { runId, continuationRunId };
    replyJson(response, 202, accepted);
  }

  /**
   * A person approves or denies the calls a run waits to have approved
   * (`WAITING_FOR_APPROVAL`). The caller's principal is recorded as who
   * decided (`{ kind: 'apiKey', id }`; `{ kind: 'development' }` without
   * keys). The decision takes effect on the run first (of concurrent decisions one wins, the others get 409), then
   * its statement is stored in the run's audit chain: `auditStatement` says
   * whether it is (`recorded`) or not yet (`pending`: nothing the decision
   * allows happens before it is). Approved (or denied with `tellModel`), the
   * run is queued again and a worker resumes it; denied with `endRun`, it
   * fails `APPROVAL_DENIED`.
   */
  @Post(':runId/approval')
  @HttpCode(200)
  @RequireScope('runs:approve')
  @ApiOperation({ summary: 'Approve or deny the calls a run waits for (WAITING_FOR_APPROVAL); the key id is recorded as who decided' })
  @ApiStoreFaults({ appends: true, alsoUnavailable: DECISION_UNAVAILABLE })
  @ApiOkResponse({ description: 'decided: the run is QUEUED again (approved, or denied with tellModel), or FAILED APPROVAL_DENIED (denied with endRun)' })
  @ApiBadRequestResponse({ description: 'a refused body (`INVALID_FIELD`, `MALFORMED_JSON`)' })
  @ApiNotFoundResponse({ description: 'no such run, or one the key may not read (`RUN_NOT_FOUND`)' })
  @ApiConflictResponse({
    description: 'the run does not wait for approval, or was decided already (`RUN_NOT_WAITING_FOR_APPROVAL`, with `status`); `round` names another request (`APPROVAL_ROUND_MISMATCH`, with `waitingRound`); the run is settled (`RUN_ALREADY_SETTLED`)',
  })
  async decideApproval(@Param('runId') runId: string, @Body() body: DecideApprovalDto, @Caller() caller: ApiCaller): Promise<RunResumeAnswer> {
    assertRunId(runId);
    const { decision, reason, round } = body;
    const decided = await this.commands.execute(new DecideRunApproval({ runId, decision, principal: caller.principal, reason, round }));
    return resumeAnswerOf(runId, decided);
  }

  /**
   * Answers a run whose tool asked for input (`WAITING_FOR_INPUT`): the run is
   * queued again and a worker calls the tool with the input. The caller's
   * principal is recorded as who submitted it.
   */
  @Post(':runId/input')
  @HttpCode(200)
  @RequireScope('runs:submit')
  @ApiOperation({ summary: 'Submit the input a run waits for (WAITING_FOR_INPUT); the key id is recorded as who submitted it' })
  @ApiStoreFaults({ appends: true })
  @ApiOkResponse({ description: 'the input is recorded: the run is QUEUED again, a worker resumes it' })
  @ApiBadRequestResponse({ description: 'a refused body (`INVALID_FIELD`, `MALFORMED_JSON`)' })
  @ApiNotFoundResponse({ description: 'no such run, or one the key may not read (`RUN_NOT_FOUND`)' })
  @ApiConflictResponse({ description: 'the run does not wait for input (`RUN_NOT_WAITING_FOR_INPUT`, with `status`); the run is settled (`RUN_ALREADY_SETTLED`)' })
  async submitInput(@Param('runId') runId: string, @Body() body: SubmitInputDto, @Caller() caller: ApiCaller): Promise<RunResumeAnswer> {
    assertRunId(runId);
    const submitted = await this.commands.execute(new SubmitRunInput({ runId, input: body.input, principal: caller.principal }));
    return resumeAnswerOf(runId, submitted);
  }
}
