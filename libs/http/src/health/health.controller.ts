import { Controller, Get } from '@nestjs/common';
import type { HealthReport } from '@agent-ledger/client';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Public } from '../auth/auth.decorators';

/** The body of `GET /health` (the client's contract's type). */
export type { HealthReport } from '@agent-ledger/client';

/** Liveness: answers as soon as the service accepts requests. */
@ApiTags('service')
@Controller('health')
export class HealthController {
  @Get()
  @Public()
  @ApiOperation({ summary: 'Liveness (no key needed)' })
  @ApiOkResponse({ description: 'the process serves HTTP' })
  check(): HealthReport {
    return { status: 'ok' };
  }
}
