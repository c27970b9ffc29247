import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplicationContext } from '@nestjs/common';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { CommandBus } from '@nestjs/cqrs';
import type { EventStore } from '@agent-ledger/event-store';
import { SqliteEventStore } from '@agent-ledger/event-store';
import { MessageValidationError } from '@agent-ledger/validation';
import type { AgentDefinition } from '../agents/agent-definition';
import { AgentLedgerRuntimeModule } from '../runtime.module';
import { auditStreamName, runStreamName } from '../persistence/run-streams';
import { decisionHistories, seedRun, storedEvents } from '../testing/decision-histories';
import { CancelRun } from './cancel-run.command';
import { DecideRunApproval } from './decide-run-approval.command';
import { RequeueDeadLetteredRun } from './requeue-dead-lettered-run.command';
import { StartRun } from './start-run.command';
import { SubmitRunInput } from './submit-run-input.command';

/*
 * Over the bus, who made a decision is the `principal` the host states for
 * its caller: a required, typed field of each command that records one,
 * recorded as it is in the run's events and its audit trail; a command
 * without it, or with a malformed one, is refused naming the field, and
 * nothing is appended.
 */

const AGENTS: AgentDefinition[] = [
  { name: 'clerk', instructions: 'Answer.', tools: ['clock.now'], maxIterations: 3, provider: { type: 'scripted', script: [{ final: 'done' }] } },
];
const BILLING = { kind: 'bus', id: 'billing' } as const;

async function countEvents(store: EventStore): Promise<number> {
  let count = 0;
  for await (const _event of store.readAll()) count += 1;
  return count;
}

describe('the principal of a decision sent over the bus (embedded store)', () => {
  let dir: string;
  let store: EventStore;
  let app: INestApplicationContext;
  let commands: CommandBus;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'agent-ledger-bus-principal-'));
    store = SqliteEventStore.open({ path: join(dir, 'agent-ledger.sqlite') });
    // No workers: the seeded runs stay where the decisions leave them.
    @Module({ imports: [AgentLedgerRuntimeModule.forRoot({ store, agents: AGENTS, tools: { builtins: { clock: true } }, workers: { concurrency: 0 }, reaper: { intervalMs: 0 }, auditGapSaga: { databasePath: join(dir, 'audit-gap-saga.sqlite') } })] })
    class HostModule {}
    app = await NestFactory.createApplicationContext(HostModule, { logger: false });
    commands = app.get(CommandBus);
  });

  afterEach(async () => {
    await app?.close();
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const runEvents = (runId: string) => storedEvents(store, runStreamName(runId));
  const auditEvents = (runId: string) => storedEvents(store, auditStreamName(runId));

  it('CancelRun records the stated principal in CancelRequested and RunCancelled', async () => {
    const { runId } = await commands.execute(new StartRun({ principal: { kind: 'bus', id: 'test' }, agent: 'clerk', input: 'x' }));
    const result = await commands.execute(new CancelRun({ runId, principal: BILLING, reason: 'duplicate ticket' }));
    expect(result.run.cancelRequestedBy).toBe('bus:billing');
    const events = await runEvents(runId);
    expect(events.find((e) => e.type === 'CancelRequested')?.data).toMatchObject({ requestedBy: BILLING, reason: 'duplicate ticket' });
    expect(events.find((e) => e.type === 'RunCancelled')?.data).toMatchObject({ requestedBy: BILLING });
  });

  it('RequeueDeadLetteredRun records it in RunRequeuedByOperator and in the audited write resolution', async () => {
    await seedRun(store, 'dead', decisionHistories.deadLetteredMidAppend('dead', 'clerk'));
    await commands.execute(new RequeueDeadLetteredRun({ runId: 'dead', principal: BILLING, resolution: { outcome: 'notExecuted', note: 'no line in log.txt' } }));
    expect((await runEvents('dead')).find((e) => e.type === 'RunRequeuedByOperator')?.data).toMatchObject({ requestedBy: BILLING });
    expect((await auditEvents('dead')).find((e) => e.type === 'WriteResolutionRecorded')?.data).toMatchObject({ resolvedBy: BILLING });
  });

  it.each(['approve', 'deny'] as const)('DecideRunApproval (%s) records it in the run decision and in the audited decision', async (decision) => {
    await seedRun(store, 'waits', decisionHistories.waitingForApproval('waits', 'clerk'));
    await commands.execute(new DecideRunApproval({ runId: 'waits', decision, principal: { kind: 'apiKey', id: 'ops' } }));
    const type = decision === 'approve' ? 'ApprovalGranted' : 'ApprovalDenied';
    expect((await runEvents('waits')).find((e) => e.type === type)?.data).toMatchObject({ decidedBy: { kind: 'apiKey', id: 'ops' } });
    expect((await auditEvents('waits')).find((e) => e.type === 'ApprovalDecisionRecorded')?.data).toMatchObject({ decidedBy: { kind: 'apiKey', id: 'ops' } });
  });

  it('SubmitRunInput records it in InputSubmitted', async () => {
    await seedRun(store, 'asks', decisionHistories.waitingForInput('asks', 'clerk'));
    await commands.execute(new SubmitRunInput({ runId: 'asks', input: 'T-7', principal: BILLING }));
    expect((await runEvents('asks')).find((e) => e.type === 'InputSubmitted')?.data).toMatchObject({ submittedBy: BILLING, input: 'T-7' });
  });

  it('refuses each of them without a principal, or with a malformed one, naming the field, and appends nothing', async () => {
    await seedRun(store, 'waits', decisionHistories.waitingForApproval('waits', 'clerk'));
    await seedRun(store, 'asks', decisionHistories.waitingForInput('asks', 'clerk'));
    await seedRun(store, 'dead', decisionHistories.deadLetteredMidAppend('dead', 'clerk'));
    const before = await countEvents(store);
    const resolution = { outcome: 'notExecuted', note: 'checked' } as const;
    const commandsWith = (principal: unknown, extra: Record<string, unknown> = {}) => [
      new CancelRun({ runId: 'waits', principal, ...extra } as never),
      new RequeueDeadLetteredRun({ runId: 'dead', resolution, principal, ...extra } as never),
      new DecideRunApproval({ runId: 'waits', decision: 'approve', principal, ...extra } as never),
      new SubmitRunInput({ runId: 'asks', input: 'T-7', principal, ...extra } as never),
    ];
    const cases: Array<[unknown, Record<string, unknown>, string]> = [
      [undefined, {}, 'principal'],
      ['billing', {}, 'principal'],
      [{ kind: 'bus' }, {}, 'principal.id'],
      [{ kind: 'bus', id: '  ' }, {}, 'principal.id'],
      [{ kind: 'root', id: 'billing' }, {}, 'principal.kind'],
      [{ kind: 'unverified', id: 'billing' }, {}, 'principal.kind'],
      [BILLING, { requestedBy: 'someone-else' }, 'requestedBy'],
      [BILLING, { decidedBy: 'someone-else' }, 'decidedBy'],
      [BILLING, { submittedBy: 'someone-else' }, 'submittedBy'],
    ];
    for (const [principal, extra, field] of cases) {
      for (const command of commandsWith(principal, extra)) {
        const refused = commands.execute(command);
        await expect(refused).rejects.toBeInstanceOf(MessageValidationError);
        await expect(refused).rejects.toMatchObject({ field });
      }
    }
    expect(await countEvents(store)).toBe(before);
  });
});
