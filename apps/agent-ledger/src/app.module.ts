import { Module } from '@nestjs/common';
import { HealthController } from './health/health.controller';

/** The service's root module. */
@Module({
  controllers: [HealthController],
})
export class AppModule {}
