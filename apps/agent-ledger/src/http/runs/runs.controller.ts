import type { ServerResponse } from 'node:http';
import { Body, Controller, Get, Param, Post, Query, Res } from '@nestjs/common';
import { assertRunId, RunNotFoundError } from '@agent-ledger/domain';
import type { RunPage, RunStatusRow, StepRow } from '@agent-ledger/projections';
import { ProjectionQueries } from '@agent-ledger/projections';
import { RunService } from '@agent-ledger/runtime';
import { replyJson } from '../json-reply';
import { CancelRunDto, ListRunsQueryDto, StartRunDto } from './run-dtos';
import { RunStarter } from './run-starter';
import { runViewOf } from './run-view';

/** The steps of a run, from the steps read model. */
export interface RunStepsAnswer {
  readonly runId: string;
  readonly steps: readonly StepRow[];
}

/**
 * `/runs`: start, list, read and cancel runs. Writes go through `RunService`
 * (and so the CommandBus and the run's decider); reads answer from the read
 * models, which follow the store a little behind.
 */
@Controller('runs')
export class RunsController {
  constructor(
    private readonly starter: RunStarter,
    private readonly runs: RunService,
    private readonly queries: ProjectionQueries,
  ) {}

  /** Starts a run: 202 with its id when queued, 200 with the settled run when interactive. */
  @Post()
  async start(@Body() body: StartRunDto, @Res() response: ServerResponse): Promise<void> {
    const outcome = await this.starter.start(body);
    const headers: Record<string, string> = { Location: `/runs/${encodeURIComponent(outcome.runId)}` };
    if (outcome.replayed) headers['Idempotent-Replayed'] = 'true';
    if (outcome.mode === 'queued') {
      const status = outcome.state?.status ?? 'QUEUED';
      replyJson(response, 202, { runId: outcome.runId, mode: outcome.mode, status, replayed: outcome.replayed }, headers);
      return;
    }
    replyJson(response, 200, { runId: outcome.runId, mode: outcome.mode, replayed: outcome.replayed, segment: outcome.segment, run: runViewOf(outcome.runId, outcome.state) }, headers);
  }

  /** Runs, newest first, filtered, a page at a time. */
  @Get()
  list(@Query() query: ListRunsQueryDto): RunPage {
    return this.queries.listRuns(query);
  }

  /** One run from the run-status read model. */
  @Get(':runId')
  get(@Param('runId') runId: string): RunStatusRow {
    assertRunId(runId);
    const row = this.queries.getRun(runId);
    if (row === null) throw new RunNotFoundError(runId);
    return row;
  }

  /** A run's steps from the steps read model. */
  @Get(':runId/steps')
  steps(@Param('runId') runId: string): RunStepsAnswer {
    assertRunId(runId);
    const steps = this.queries.getSteps(runId);
    if (steps.length === 0 && this.queries.getRun(runId) === null) throw new RunNotFoundError(runId);
    return { runId, steps };
  }

  /** Asks to cancel a run: 200 when it is cancelled already (it was queued), 202 when a running segment will stop at its next step boundary. */
  @Post(':runId/cancel')
  async cancel(@Param('runId') runId: string, @Body() body: CancelRunDto, @Res() response: ServerResponse): Promise<void> {
    assertRunId(runId);
    const state = await this.runs.cancel(runId, body.requestedBy ?? 'http-api', body.reason);
    replyJson(response, state.settlement === null ? 202 : 200, { runId, cancelRequested: true, run: runViewOf(runId, state) });
  }
}
