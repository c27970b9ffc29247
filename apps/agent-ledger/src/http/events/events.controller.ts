import type { ServerResponse } from 'node:http';
import { Controller, Get, Headers, Param, Query, Res } from '@nestjs/common';
import { assertRunId } from '@agent-ledger/domain';
import { EventStreamQueryDto } from '../runs/run-dtos';
import { EventStreamService } from './event-stream.service';

/**
 * Live events as Server-Sent Events: `GET /runs/{runId}/events` (one run's
 * stream) and `GET /events` (every run's events). History first, then live;
 * resume with `Last-Event-ID` (or `?after=<position>`).
 */
@Controller()
export class EventsController {
  constructor(private readonly streams: EventStreamService) {}

  @Get('runs/:runId/events')
  async runEvents(
    @Param('runId') runId: string,
    @Query() query: EventStreamQueryDto,
    @Headers('last-event-id') lastEventId: string | undefined,
    @Res() response: ServerResponse,
  ): Promise<void> {
    assertRunId(runId);
    const after = this.streams.resumePoint({ lastEventId, after: query.after });
    await this.streams.streamRun(runId, after, response);
  }

  @Get('events')
  async allEvents(@Query() query: EventStreamQueryDto, @Headers('last-event-id') lastEventId: string | undefined, @Res() response: ServerResponse): Promise<void> {
    const after = this.streams.resumePoint({ lastEventId, after: query.after });
    await this.streams.streamAll(after, response);
  }
}
