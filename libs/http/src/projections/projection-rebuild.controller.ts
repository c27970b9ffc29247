import { Body, Controller, Get, HttpCode, Post } from '@nestjs/common';
import type { RebuildAnswer } from '@agent-ledger/client';
import { principalLabel } from '@agent-ledger/domain';
import { ApiAcceptedResponse, ApiBadRequestResponse, ApiConflictResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { ApiCaller } from '../auth/api-caller';
import { Caller } from '../auth/api-caller';
import { RequireScope } from '../auth/auth.decorators';
import { ProjectionRebuildService } from './projection-rebuild.service';
import { StartRebuildDto } from './rebuild-dtos';

/** The body of `POST` and `GET /projections/rebuild` (the client's contract's type). */
export type { RebuildAnswer } from '@agent-ledger/client';

/** `/projections/rebuild`: an operator rebuilds the read models in this process, in the background, and follows it. */
@ApiTags('read models')
@Controller('projections/rebuild')
@RequireScope('operate')
export class ProjectionRebuildController {
  constructor(private readonly rebuilds: ProjectionRebuildService) {}

  /** Starts a rebuild in the background: 202 with its `running` state; 409 while one runs. */
  @Post()
  @HttpCode(202)
  @ApiOperation({ summary: 'Rebuild one projection (or all) in the background of this process; the live tables answer until the swap' })
  @ApiAcceptedResponse({ description: 'the rebuild started (`state: running`); follow it with GET /projections/rebuild' })
  @ApiBadRequestResponse({ description: 'an unknown projection or field (`INVALID_FIELD`, `field: projection`)' })
  @ApiConflictResponse({ description: 'a rebuild runs in this process (`REBUILD_IN_PROGRESS`)' })
  start(@Body() body: StartRebuildDto, @Caller() caller: ApiCaller): RebuildAnswer {
    const rebuild = this.rebuilds.start(body.projection, principalLabel(caller.principal));
    return { rebuild, history: this.rebuilds.history() };
  }

  /** The running rebuild with its progress, or the last one's outcome, or `idle`; and the rebuilds recorded in the read models' file. */
  @Get()
  @ApiOperation({ summary: "The rebuild of this process: running (with its progress), succeeded, failed, or idle; and the last rebuilds swapped into the read models' file, by any process (the CLI's included)" })
  @ApiOkResponse({ description: "the rebuild of this process, and the read models' file's history of rebuilds" })
  state(): RebuildAnswer {
    return { rebuild: this.rebuilds.state(), history: this.rebuilds.history() };
  }
}
