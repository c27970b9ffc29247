import { NestFactory } from '@nestjs/core';
import { HostModule } from './host.module';
import { HostStorage } from './host-storage';
import { TicketDesk } from './tickets/ticket-desk';
import { TicketRuns } from './tickets/ticket-runs.service';

/**
 * The example host: boots its application with the runtime in-process,
 * closes ticket T-1 through an agent run (a `StartRun` on its own
 * CommandBus), reads the run back (a `GetRunState` on its QueryBus), prints
 * both, and stops. Data in `EXAMPLE_HOST_DATA_DIR` (default
 * `./data/example-host`); run it twice to see the idempotency key replay.
 *
 *   npm run build && node apps/example-host/dist/main.js
 */
async function main(): Promise<void> {
  const app = await NestFactory.createApplicationContext(HostModule.forRoot({ dataDir: process.env.EXAMPLE_HOST_DATA_DIR ?? './data/example-host' }), {
    logger: ['error', 'warn'],
  });
  const storage = app.get(HostStorage);
  try {
    const tickets = app.get(TicketRuns);
    const started = await tickets.closeTicket('T-1');
    console.log(JSON.stringify({ runId: started.runId, status: started.status, replayed: started.replayed, answer: started.run.answer }));
    const { run } = await tickets.run(started.runId);
    console.log(JSON.stringify({ read: run, closingsThisProcess: app.get(TicketDesk).closings() }));
  } finally {
    await app.close();
    await storage.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
