import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ToolEffect } from '@agent-ledger/domain';
import { GetAuditReview, GetRun, ProjectionRunnerPool } from '@agent-ledger/projections';
import { MessageValidationError, runIdForIdempotencyKey, StartRun, ToolRegistry } from '@agent-ledger/runtime';
import type { StartRunFields } from '@agent-ledger/runtime';
import { HostModule } from './host.module';
import { HostStorage } from './host-storage';
import { TICKET_CLOSER } from './ticket-agents';
import { TicketDesk } from './tickets/ticket-desk';
import { TicketRuns } from './tickets/ticket-runs.service';

async function eventCount(storage: HostStorage): Promise<number> {
  let count = 0;
  for await (const _event of storage.store().readAll()) count += 1;
  return count;
}

describe('the example host application (runtime embedded with forRootAsync, a custom write tool, commands on its own buses)', () => {
  let dataDir: string;
  let app: INestApplicationContext;
  let storage: HostStorage;

  const boot = async () => {
    app = await NestFactory.createApplicationContext(HostModule.forRoot({ dataDir }), { logger: false });
    storage = app.get(HostStorage);
  };
  const stop = async () => {
    await app.close();
    await storage.close();
  };

  beforeEach(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'example-host-'));
    await boot();
  });

  afterEach(async () => {
    await stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('registers its tickets.close provider as a NON_IDEMPOTENT_WRITE, declared in code', () => {
    expect(app.get(ToolRegistry).names()).toContain('tickets.close');
    expect(app.get(ToolRegistry).effectFor('tickets.close')).toBe(ToolEffect.NON_IDEMPOTENT_WRITE);
  });

  it('closes a ticket through a StartRun on its CommandBus: the run completes, the tool ran once with its idempotency key, the audit exists', async () => {
    const tickets = app.get(TicketRuns);
    const started = await tickets.closeTicket('T-1');
    const runId = runIdForIdempotencyKey('close-ticket:T-1');
    expect(started).toMatchObject({ mode: 'interactive', runId, status: 'COMPLETED', replayed: false, segment: 'settled' });
    expect(started.run.answer).toBe('Ticket T-1 is closed.');
    expect(app.get(TicketDesk).closings()).toEqual([{ ticketId: 'T-1', note: 'Fixed in 1.2.0.', idempotencyKey: `agent-ledger:${runId}/r0/t0` }]);

    // Read back on the QueryBus: the run's own stream, then the read models once caught up.
    const { run, state } = await tickets.run(runId);
    expect(run).toMatchObject({ status: 'COMPLETED', reason: 'COMPLETED', agent: TICKET_CLOSER });
    expect([...state.steps.values()].find((step) => step.toolName === 'tickets.close')).toMatchObject({ effect: 'NON_IDEMPOTENT_WRITE', outcome: 'succeeded', starts: 1 });
    await app.get(ProjectionRunnerPool).catchUp();
    const queries = app.get(QueryBus);
    expect(await queries.execute(new GetRun(runId))).toMatchObject({ runId, status: 'COMPLETED' });
    const review = await queries.execute(new GetAuditReview({ runId }));
    expect(review.totals).toMatchObject({ writes: 1, writesExecuted: 1, writesAudited: 1, writesWithoutAudit: 0 });
    expect(review.writes).toEqual([expect.objectContaining({ runId, toolName: 'tickets.close' })]);
  });

  it('closes nothing more when the same ticket is closed again, even after a restart (the idempotency key replays the run)', async () => {
    const first = await app.get(TicketRuns).closeTicket('T-1');
    await stop();
    await boot();
    const again = await app.get(TicketRuns).closeTicket('T-1');
    expect(again).toMatchObject({ runId: first.runId, replayed: true, status: 'COMPLETED', segment: null });
    expect(app.get(TicketDesk).closings()).toHaveLength(0); // this process's desk: nothing was posted
  });

  it('rejects a bad command on its CommandBus, naming the field, and appends nothing', async () => {
    await app.get(TicketRuns).closeTicket('T-1');
    const before = await eventCount(storage);
    const bad = app.get(CommandBus).execute(new StartRun({ principal: { kind: 'bus', id: 'test' }, agent: TICKET_CLOSER, input: { ticketId: 'T-2' }, mode: 'at once' } as unknown as StartRunFields));
    await expect(bad).rejects.toBeInstanceOf(MessageValidationError);
    await expect(bad).rejects.toMatchObject({ code: 'INVALID_FIELD', field: 'mode', rule: 'isIn', message: 'mode must be one of the following values: interactive, queued' });
    expect(await eventCount(storage)).toBe(before);
    expect(app.get(TicketDesk).closings()).toHaveLength(1);
  });
});
