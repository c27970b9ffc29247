import { Controller, Get } from '@nestjs/common';

/** The body of `GET /health`. */
export interface HealthReport {
  readonly status: 'ok';
}

/** Liveness: answers as soon as the service accepts requests. */
@Controller('health')
export class HealthController {
  @Get()
  check(): HealthReport {
    return { status: 'ok' };
  }
}
