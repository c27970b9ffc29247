import type { ServerResponse } from 'node:http';
import { Controller, Get, Headers, Param, Query, Res } from '@nestjs/common';
import { ApiBadRequestResponse, ApiHeader, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { assertRunId } from '@agent-ledger/domain';
import { AcrossRuns, RequireScope } from '../auth/auth.decorators';
import { EventStreamQueryDto } from '../runs/run-dtos';
import { EventStreamService } from './event-stream.service';
import { ApiStoreFaults } from '../openapi/store-faults.decorator';

const LAST_EVENT_ID = { name: 'Last-Event-ID', required: false, description: 'Resume right after this event (the id of the last frame received)' };
/** The SSE answer: a stream of frames, described in words (it is not one JSON document). */
const STREAM = {
  description:
    'Server-Sent Events: history, then live; the stream never ends on its own. Each event is one frame: `id:` the event\'s position in the store ' +
    '(opaque, `<commit>:<prepare>`; send it back as Last-Event-ID to resume), `event:` the event type (`RunRequested`, `StepStarted`, ...), ' +
    '`data:` one line of JSON, a `StreamedEvent` (`#/components/schemas/StreamedEvent`): `{ type, streamName, revision (0-based in its stream), position, data, metadata, created (ISO 8601) }`. ' +
    'Comment lines (`: heartbeat`) keep the connection open; an `event: error` frame (`data: { code, message }`) precedes the end of the stream when the store fails.',
  content: {
    'text/event-stream': {
      schema: { type: 'string' },
      example:
        'retry: 1000\n: events of run r1\n\nid: 1:1\nevent: RunRequested\ndata: {"type":"RunRequested","streamName":"run-r1","revision":0,"position":"1:1","data":{},"metadata":{},"created":"2026-11-30T00:51:02.046Z"}\n\n: heartbeat\n\n',
    },
  },
};

/**
 * Live events as Server-Sent Events: `GET /runs/{runId}/events` (one run's
 * stream) and `GET /events` (every run's events). History first, then live;
 * resume with `Last-Event-ID` (or `?after=<position>`). In the OpenAPI
 * document the 200 names its own content type (`text/event-stream`); the
 * errors are JSON, as everywhere (no `@ApiProduces` for the whole controller).
 */
@ApiTags('events')
@Controller()
export class EventsController {
  constructor(private readonly streams: EventStreamService) {}

  @Get('runs/:runId/events')
  @RequireScope('runs:read')
  @ApiOperation({ summary: "SSE: the run's stream, history then live" })
  @ApiStoreFaults()
  @ApiHeader(LAST_EVENT_ID)
  @ApiOkResponse(STREAM)
  @ApiBadRequestResponse({ description: 'a bad run id, Last-Event-ID or after (`INVALID_FIELD`)' })
  @ApiNotFoundResponse({ description: 'no such run, or one the key may not read (`RUN_NOT_FOUND`)' })
  async runEvents(
    @Param('runId') runId: string,
    @Query() query: EventStreamQueryDto,
    @Headers('last-event-id') lastEventId: string | undefined,
    @Res() response: ServerResponse,
  ): Promise<void> {
    assertRunId(runId);
    const after = this.streams.resumePoint({ lastEventId, after: query.after });
    await this.streams.streamRun(runId, after, response, query.from);
  }

  @Get('events')
  @RequireScope('runs:read')
  @AcrossRuns()
  @ApiOperation({ summary: "SSE: every run's events, history then live (a key for every agent)" })
  @ApiHeader(LAST_EVENT_ID)
  @ApiOkResponse(STREAM)
  @ApiBadRequestResponse({ description: 'a bad Last-Event-ID or after (`INVALID_FIELD`)' })
  async allEvents(@Query() query: EventStreamQueryDto, @Headers('last-event-id') lastEventId: string | undefined, @Res() response: ServerResponse): Promise<void> {
    const after = this.streams.resumePoint({ lastEventId, after: query.after });
    await this.streams.streamAll(after, response, query.from);
  }
}
