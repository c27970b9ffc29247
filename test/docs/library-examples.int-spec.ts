/**
 * docs/library.md's examples, as an executable test: each `it` runs the code
 * of one example of the reference (the same calls, the same fields) in a Nest
 * application context with `AgentLedgerModule` on a real embedded store in a
 * temp folder, the doc's host (its ticket desk, its tools, its scripted
 * agents), and asserts the results the doc states. If the doc stops being
 * true, this fails. The examples build on each other (run ids of earlier
 * ones), in the doc's order, on one application. The only differences from the doc's host: a clock the
 * test moves by hand (`clock`), the reaper and the audit-gap saga called by
 * hand (`reaper.intervalMs: 0`, `auditGapSaga.checkIntervalMs: 0`), and a
 * shorter worker poll.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplicationContext } from '@nestjs/common';
import { Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { CommandBus, QueryBus, QueryHandlerNotFoundException } from '@nestjs/cqrs';
import type { DeclaresToolEffect, JsonObject, JsonValue, Principal } from '@agent-ledger/domain';
import {
  ApprovalRoundMismatchError,
  InFlightWriteUnresolvedError,
  InvalidFieldError,
  RunAlreadyExistsError,
  RunAlreadyRequeuedError,
  RunAlreadySettledError,
  RunNotDeadLetteredError,
  RunNotFoundError,
  RunNotWaitingError,
  ToolEffect,
} from '@agent-ledger/domain';
import type { EventStore } from '@agent-ledger/event-store';
import { SqliteEventStore } from '@agent-ledger/event-store';
import { AgentLedgerModule } from '@agent-ledger/module';
import { GetAuditReview, GetProjectionStatus, GetRun, GetRunSteps, ListApprovals, ListRuns, ProjectionRunnerPool } from '@agent-ledger/projections';
import type { AgentDefinition, AgentTool, ToolContext } from '@agent-ledger/runtime';
import {
  AgentLedgerRuntimeModule,
  CancelRun,
  DecideRunApproval,
  GetRunState,
  IdempotencyKeyReusedError,
  MessageValidationError,
  Reaper,
  RequeueDeadLetteredRun,
  runIdForIdempotencyKey,
  StartRun,
  SubmitRunInput,
  throwIfToolAborted,
  Tool,
} from '@agent-ledger/runtime';
import { ManualClock } from '@agent-ledger/runtime/testing';
import { scaled } from '../support/time-scale';

// ── The doc's host: "A host for the examples" ───────────────────────────────

interface TicketClosing {
  readonly ticketId: string;
  readonly note: string;
  readonly idempotencyKey: string;
}

/** The host's ticket system (in memory). The test can hold the next close until it lets it go. */
@Injectable()
class TicketDesk {
  private readonly posted: TicketClosing[] = [];
  private held: { entered: () => void; released: Promise<void> } | null = null;
  private watchers: Array<() => void> = [];

  async close(ticketId: string, note: string, idempotencyKey: string): Promise<void> {
    this.posted.push({ ticketId, note, idempotencyKey });
    const held = this.held;
    this.held = null;
    if (held !== null) {
      held.entered();
      await held.released;
    }
  }

  closings(): readonly TicketClosing[] {
    return [...this.posted];
  }

  /** Waits for the ticket's next change; here, until the call is aborted. */
  watch(signal: AbortSignal): Promise<never> {
    for (const watcher of this.watchers) watcher();
    this.watchers = [];
    return new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true }));
  }

  /** Test only: resolves when a `watch` call is waiting. */
  watching(): Promise<void> {
    return new Promise((resolve) => this.watchers.push(resolve));
  }

  /** Test only: the next close is posted, then waits until `release()`. */
  holdNextClose(): { entered: Promise<void>; release: () => void } {
    let entered!: () => void;
    let release!: () => void;
    const enteredPromise = new Promise<void>((resolve) => (entered = resolve));
    const released = new Promise<void>((resolve) => (release = resolve));
    this.held = { entered, released };
    return { entered: enteredPromise, release };
  }
}

interface CloseTicketArgs extends JsonObject {
  readonly ticketId: string;
  readonly note: string;
}

@Tool({
  name: 'tickets.close',
  description: 'Closes a ticket with a note.',
  parameters: {
    type: 'object',
    properties: { ticketId: { type: 'string', pattern: '^T-[0-9]+$' }, note: { type: 'string', minLength: 1 } },
    required: ['ticketId', 'note'],
    additionalProperties: false,
  },
  operationDeadlineSeconds: 30,
})
class CloseTicketTool implements AgentTool<CloseTicketArgs>, DeclaresToolEffect {
  constructor(private readonly desk: TicketDesk) {}
  getEffect(): ToolEffect {
    return ToolEffect.NON_IDEMPOTENT_WRITE; // each call posts one more note: never executed twice
  }
  async execute(args: CloseTicketArgs, context: ToolContext): Promise<JsonValue> {
    throwIfToolAborted(context.signal, 'tickets.close');
    await this.desk.close(args.ticketId, args.note, context.idempotencyKey);
    return { closed: args.ticketId };
  }
}

@Tool({
  name: 'tickets.watch',
  description: 'Waits for the next change of a ticket.',
  parameters: { type: 'object', properties: { ticketId: { type: 'string' } }, required: ['ticketId'], additionalProperties: false },
})
class WatchTicketTool implements AgentTool<JsonObject & { ticketId: string }> {
  constructor(private readonly desk: TicketDesk) {}
  async execute(_args: { ticketId: string }, context: ToolContext): Promise<JsonValue> {
    return this.desk.watch(context.signal);
  }
}

@Module({ providers: [TicketDesk, CloseTicketTool, WatchTicketTool], exports: [TicketDesk] })
class TicketsModule {}

const close = (ticketId: string) => ({ toolCalls: [{ tool: 'tickets.close', arguments: { ticketId, note: 'Fixed in 1.2.0.' } }] });

const TICKET_AGENTS: AgentDefinition[] = [
  {
    name: 'ticket-closer',
    instructions: 'Close the ticket, then say so.',
    tools: ['tickets.close'],
    approvals: { preApproved: ['tickets.close'], onDenial: 'endRun' },
    maxIterations: 3,
    provider: { type: 'scripted', script: [close('T-1'), { final: 'Ticket T-1 is closed.' }] },
  },
  {
    name: 'careful-closer',
    instructions: 'Close the ticket once a person approves, then say so.',
    tools: ['tickets.close'],
    maxIterations: 3,
    provider: { type: 'scripted', script: [close('T-2'), { final: 'Ticket T-2 is closed.' }] },
  },
  {
    name: 'asker',
    instructions: 'Ask which ticket to close.',
    tools: ['user.ask'],
    maxIterations: 3,
    provider: { type: 'scripted', script: [{ toolCalls: [{ tool: 'user.ask', arguments: { question: 'Which ticket should I close?' } }] }, { final: 'Noted.' }] },
  },
  {
    name: 'watcher',
    instructions: 'Watch the ticket.',
    tools: ['tickets.watch'],
    maxIterations: 3,
    provider: { type: 'scripted', script: [{ toolCalls: [{ tool: 'tickets.watch', arguments: { ticketId: 'T-3' } }] }, { final: 'T-3 changed.' }] },
  },
];

// ── The test's scaffolding ──────────────────────────────────────────────────

async function eventually<T>(probe: () => Promise<T | null | undefined>, what: string): Promise<T> {
  const deadline = Date.now() + scaled(10_000);
  for (;;) {
    const value = await probe();
    if (value !== null && value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not in time`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function countEvents(store: EventStore): Promise<number> {
  let count = 0;
  for await (const _event of store.readAll()) count += 1;
  return count;
}

describe('docs/library.md: every command and query, as its examples show them', () => {
  let dir: string;
  let store: EventStore;
  let app: INestApplicationContext;
  let commandBus: CommandBus;
  let queryBus: QueryBus;
  let desk: TicketDesk;
  const clock = new ManualClock(Date.UTC(2026, 0, 1));

  /** The doc's "wait until settled" helper: polls GetRunState (never lags). */
  async function waitForStatus(runId: string, ...statuses: string[]) {
    return eventually(async () => {
      const { run } = await queryBus.execute(new GetRunState({ runId }));
      return run.status !== null && statuses.includes(run.status) ? run : null;
    }, `run ${runId} ${statuses.join('/')}`);
  }

  const catchUp = () => app.get(ProjectionRunnerPool).catchUp();

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'agent-ledger-library-doc-'));
    store = SqliteEventStore.open({ path: join(dir, 'agent-ledger.sqlite'), maxPollIntervalMs: 20 });
    @Module({
      imports: [
        AgentLedgerModule.forRoot({
          store,
          agents: TICKET_AGENTS,
          workers: { concurrency: 1, pollIntervalMs: 20 },
          readModels: { databasePath: join(dir, 'read-models.sqlite') },
          auditGapSaga: { databasePath: join(dir, 'audit-gap-saga.sqlite'), checkIntervalMs: 0 },
          reaper: { intervalMs: 0 },
          clock,
        }),
        TicketsModule,
      ],
    })
    class HostModule {}
    app = await NestFactory.createApplicationContext(HostModule, { logger: false });
    commandBus = app.get(CommandBus);
    queryBus = app.get(QueryBus);
    desk = app.get(TicketDesk);
  });

  afterAll(async () => {
    await app?.close();
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the first example: an interactive StartRun, then GetRunState', async () => {
    const result = await commandBus.execute(new StartRun({ principal: { kind: 'bus', id: 'test' }, agent: 'ticket-closer', input: { ticketId: 'T-1' }, mode: 'interactive' }));
    const { run } = await queryBus.execute(new GetRunState({ runId: result.runId }));
    expect(result).toMatchObject({ mode: 'interactive', status: 'COMPLETED' });
    expect(run).toMatchObject({ runId: result.runId, status: 'COMPLETED', answer: 'Ticket T-1 is closed.' });
  });

  // ── StartRun ──────────────────────────────────────────────────────────────

  it('StartRun, interactive: resolves with the settled run', async () => {
    const result = await commandBus.execute(new StartRun({ principal: { kind: 'bus', id: 'test' }, agent: 'ticket-closer', input: { ticketId: 'T-1' }, mode: 'interactive', runId: 'close-T-1' }));
    if (result.mode !== 'interactive') throw new Error('unreachable: mode is interactive');
    // result: { mode: 'interactive', runId: 'close-T-1', status: 'COMPLETED', replayed: false, segment: 'settled', run, state }
    // result.run: { status: 'COMPLETED', reason: 'COMPLETED', answer: 'Ticket T-1 is closed.', attempts: 1, ... }
    // result.state.steps: 3 steps (model, tickets.close, model)
    expect(result).toMatchObject({ mode: 'interactive', runId: 'close-T-1', status: 'COMPLETED', replayed: false, segment: 'settled' });
    expect(result.run).toMatchObject({ status: 'COMPLETED', reason: 'COMPLETED', answer: 'Ticket T-1 is closed.', attempts: 1 });
    expect(result.state.steps.size).toBe(3);
    expect(desk.closings().filter((c) => c.idempotencyKey.startsWith('agent-ledger:close-T-1/'))).toEqual([
      { ticketId: 'T-1', note: 'Fixed in 1.2.0.', idempotencyKey: 'agent-ledger:close-T-1/r0/t0' },
    ]);
  });

  it('StartRun, queued: resolves at once; a worker executes it', async () => {
    const queued = await commandBus.execute(new StartRun({ principal: { kind: 'bus', id: 'test' }, agent: 'ticket-closer', input: { ticketId: 'T-1' } }));
    // queued: { mode: 'queued', runId: '<a random UUID>', status: 'QUEUED', replayed: false }
    expect(queued).toEqual({ mode: 'queued', runId: expect.stringMatching(/^[0-9a-f-]{36}$/), status: 'QUEUED', replayed: false });
    const run = await waitForStatus(queued.runId, 'COMPLETED');
    expect(run.answer).toBe('Ticket T-1 is closed.');
  });

  it('StartRun with an idempotency key: the same command again replays the run; another input is refused', async () => {
    const fields = { agent: 'ticket-closer', input: { ticketId: 'T-1' }, mode: 'interactive', idempotencyKey: 'close-ticket:T-1', principal: { kind: 'bus', id: 'ticket-service' } } as const;
    const first = await commandBus.execute(new StartRun(fields));
    const again = await commandBus.execute(new StartRun(fields));
    // first.runId === again.runId === runIdForIdempotencyKey('close-ticket:T-1') ('ik-' and 32 hex digits)
    // again: { replayed: true, segment: null, status: 'COMPLETED', ... }: nothing was started or executed again
    expect(first.runId).toBe(runIdForIdempotencyKey('close-ticket:T-1'));
    expect(first.runId).toMatch(/^ik-[0-9a-f]{32}$/);
    expect(again).toMatchObject({ runId: first.runId, replayed: true, segment: null, status: 'COMPLETED' });
    expect(desk.closings().filter((c) => c.idempotencyKey.startsWith(`agent-ledger:${first.runId}/`))).toHaveLength(1);

    const reused = commandBus.execute(new StartRun({ ...fields, input: { ticketId: 'T-2' } }));
    // rejects with IdempotencyKeyReusedError: code 'IDEMPOTENCY_KEY_REUSED', field 'input', runId: first.runId
    await expect(reused).rejects.toBeInstanceOf(IdempotencyKeyReusedError);
    await expect(reused).rejects.toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED', field: 'input', runId: first.runId });
  });

  it('StartRun: its refusals', async () => {
    const before = await countEvents(store);
    // an unknown agent
    await expect(commandBus.execute(new StartRun({ principal: { kind: 'bus', id: 'test' }, agent: 'nobody', input: 'x' }))).rejects.toMatchObject({
      constructor: InvalidFieldError,
      code: 'INVALID_FIELD',
      field: 'agent',
      message: 'agent must name a configured agent (known: ticket-closer, careful-closer, asker, watcher)',
    });
    // runId and idempotencyKey together
    await expect(commandBus.execute(new StartRun({ principal: { kind: 'bus', id: 'test' }, agent: 'ticket-closer', input: 'x', runId: 'r-1', idempotencyKey: 'k-1' }))).rejects.toMatchObject({
      constructor: InvalidFieldError,
      field: 'idempotencyKey',
    });
    // a runId that exists
    await expect(commandBus.execute(new StartRun({ principal: { kind: 'bus', id: 'test' }, agent: 'ticket-closer', input: 'x', runId: 'close-T-1' }))).rejects.toMatchObject({
      constructor: RunAlreadyExistsError,
      code: 'RUN_ALREADY_EXISTS',
      runId: 'close-T-1',
    });
    expect(await countEvents(store)).toBe(before);
  });

  // ── Validation on the bus ─────────────────────────────────────────────────

  it('a field that breaks its rule: MessageValidationError, naming it, and nothing appended', async () => {
    const before = await countEvents(store);
    let caught: unknown;
    try {
      await commandBus.execute(new StartRun({ principal: { kind: 'bus', id: 'test' }, agent: 'ticket-closer', input: 'x', mode: 'at once' as never }));
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(MessageValidationError);
    expect(caught).toBeInstanceOf(InvalidFieldError);
    expect(caught).toMatchObject({
      code: 'INVALID_FIELD',
      failureClass: 'clientError',
      messageType: 'StartRun',
      field: 'mode',
      rule: 'isIn',
      message: 'mode must be one of the following values: interactive, queued',
      issues: [{ field: 'mode', rule: 'isIn', message: 'mode must be one of the following values: interactive, queued' }],
    });
    expect(await countEvents(store)).toBe(before);
  });

  // ── GetRunState ───────────────────────────────────────────────────────────

  it('GetRunState: the run as its stream tells it now; RunNotFoundError for a run never requested', async () => {
    const { runId, run, state } = await queryBus.execute(new GetRunState({ runId: 'close-T-1' }));
    // run: { runId: 'close-T-1', agent: 'ticket-closer', mode: 'interactive', status: 'COMPLETED', answer: 'Ticket T-1 is closed.', ... }
    // state.steps.get('close-T-1/r0/t0'): { toolName: 'tickets.close', effect: 'NON_IDEMPOTENT_WRITE', outcome: 'succeeded', result: { closed: 'T-1' }, ... }
    expect(runId).toBe('close-T-1');
    expect(run).toMatchObject({ runId: 'close-T-1', agent: 'ticket-closer', mode: 'interactive', status: 'COMPLETED', answer: 'Ticket T-1 is closed.' });
    expect(state.steps.get('close-T-1/r0/t0')).toMatchObject({ toolName: 'tickets.close', effect: 'NON_IDEMPOTENT_WRITE', outcome: 'succeeded', result: { closed: 'T-1' } });

    const missing = queryBus.execute(new GetRunState({ runId: 'never-requested' }));
    // rejects with RunNotFoundError: code 'RUN_NOT_FOUND'
    await expect(missing).rejects.toBeInstanceOf(RunNotFoundError);
    await expect(missing).rejects.toMatchObject({ code: 'RUN_NOT_FOUND', runId: 'never-requested' });
  });

  // ── principal ─────────────────────────────────────────────────────────────

  it('principal: a missing or malformed one is refused naming the field', async () => {
    const before = await countEvents(store);
    await expect(commandBus.execute(new CancelRun({ runId: 'close-T-1', principal: { kind: 'bus', id: '' } }))).rejects.toMatchObject({
      constructor: MessageValidationError,
      field: 'principal.id',
    });
    await expect(commandBus.execute(new CancelRun({ runId: 'close-T-1' } as never))).rejects.toMatchObject({ constructor: MessageValidationError, field: 'principal' });
    const unverified = commandBus.execute(new CancelRun({ runId: 'close-T-1', principal: { kind: 'unverified', name: 'alice' } }));
    // rejects: issues [{ field: 'principal.name', rule: 'unknownField' }, { field: 'principal.kind', rule: 'isIn' }, { field: 'principal.id', ... }]
    await expect(unverified).rejects.toMatchObject({
      constructor: MessageValidationError,
      issues: expect.arrayContaining([expect.objectContaining({ field: 'principal.kind', rule: 'isIn' })]),
    });
    expect(await countEvents(store)).toBe(before);
  });

  // ── CancelRun ─────────────────────────────────────────────────────────────

  it('CancelRun: a queued run is cancelled at once, a running one at its next step boundary', async () => {
    const principal: Principal = { kind: 'bus', id: 'billing-service' };
    const watching = desk.watching();
    const running = await commandBus.execute(new StartRun({ principal: { kind: 'bus', id: 'test' }, agent: 'watcher', input: 'T-3', runId: 'watch-T-3' }));
    await watching; // the only worker executes tickets.watch
    const waiting = await commandBus.execute(new StartRun({ principal: { kind: 'bus', id: 'test' }, agent: 'ticket-closer', input: 'later', runId: 'close-later' }));

    const queued = await commandBus.execute(new CancelRun({ runId: waiting.runId, principal, reason: 'the order was refunded' }));
    // queued: { runId: 'close-later', settled: true, status: 'CANCELLED', run: { reason: 'CANCELLED', cancelRequestedBy: 'bus:billing-service', ... }, state }
    expect(queued).toMatchObject({ runId: 'close-later', settled: true, status: 'CANCELLED', run: { reason: 'CANCELLED', cancelRequestedBy: 'bus:billing-service' } });

    const stopping = await commandBus.execute(new CancelRun({ runId: running.runId, principal }));
    // stopping: { runId: 'watch-T-3', settled: false, status: 'RUNNING', run: { cancelRequested: true, cancelRequestedBy: 'bus:billing-service', ... }, state }
    expect(stopping).toMatchObject({ runId: 'watch-T-3', settled: false, status: 'RUNNING', run: { cancelRequested: true, cancelRequestedBy: 'bus:billing-service' } });
    expect(stopping.state.cancelRequestedBy).toEqual(principal);
    const cancelled = await waitForStatus('watch-T-3', 'CANCELLED');
    expect(cancelled.reason).toBe('CANCELLED');

    const again = commandBus.execute(new CancelRun({ runId: 'watch-T-3', principal }));
    // rejects with RunAlreadySettledError: code 'RUN_ALREADY_SETTLED', status 'CANCELLED'
    await expect(again).rejects.toBeInstanceOf(RunAlreadySettledError);
    await expect(again).rejects.toMatchObject({ code: 'RUN_ALREADY_SETTLED', status: 'CANCELLED' });
    await expect(commandBus.execute(new CancelRun({ runId: 'nope', principal }))).rejects.toMatchObject({ constructor: RunNotFoundError, code: 'RUN_NOT_FOUND' });
  });

  // ── The approval flow ─────────────────────────────────────────────────────

  it('DecideRunApproval: a run waits for approval, a person approves round 0, a worker completes it', async () => {
    const alice: Principal = { kind: 'bus', id: 'ops:alice' };

    // 1. The agent's write is not pre-approved: the run stops before tickets.close executes.
    const started = await commandBus.execute(new StartRun({ principal: { kind: 'bus', id: 'test' }, agent: 'careful-closer', input: { ticketId: 'T-2' }, mode: 'interactive', runId: 'close-T-2' }));
    if (started.mode !== 'interactive') throw new Error('unreachable: mode is interactive');
    // started: { status: 'WAITING_FOR_APPROVAL', segment: 'waiting', ... }
    // started.run.pendingApproval: { round: 0, onDenial: 'endRun', calls: [{ stepId: 'close-T-2/r0/t0', toolName: 'tickets.close',
    //   effect: 'NON_IDEMPOTENT_WRITE', arguments: { ticketId: 'T-2', note: 'Fixed in 1.2.0.' }, requirement: 'write', callIndex: 0 }], requestedAt }
    expect(started).toMatchObject({ status: 'WAITING_FOR_APPROVAL', segment: 'waiting' });
    expect(started.run.pendingApproval).toMatchObject({
      round: 0,
      onDenial: 'endRun',
      calls: [{ stepId: 'close-T-2/r0/t0', toolName: 'tickets.close', effect: 'NON_IDEMPOTENT_WRITE', arguments: { ticketId: 'T-2', note: 'Fixed in 1.2.0.' }, requirement: 'write', callIndex: 0 }],
    });
    expect(desk.closings().some((c) => c.ticketId === 'T-2')).toBe(false);

    // 2. What a person is shown: the pending requests (read model).
    await catchUp();
    const { approvals } = await queryBus.execute(new ListApprovals({ state: 'pending' }));
    // approvals: [{ approvalId: 'close-T-2/r0', runId: 'close-T-2', agent: 'careful-closer', round: 0, state: 'pending', calls: [...], ... }]
    expect(approvals).toEqual([expect.objectContaining({ approvalId: 'close-T-2/r0', runId: 'close-T-2', agent: 'careful-closer', round: 0, state: 'pending' })]);

    // 3. The decision, on the round the person saw.
    const decided = await commandBus.execute(new DecideRunApproval({ runId: 'close-T-2', decision: 'approve', round: 0, principal: alice, reason: 'customer confirmed' }));
    // decided: { runId: 'close-T-2', status: 'QUEUED', auditStatement: 'recorded', run, state }
    expect(decided).toMatchObject({ runId: 'close-T-2', status: 'QUEUED', auditStatement: 'recorded' });

    // 4. A worker resumes the run: the write executes, once, and the run completes.
    const done = await waitForStatus('close-T-2', 'COMPLETED', 'FAILED', 'CANCELLED');
    // done: { status: 'COMPLETED', answer: 'Ticket T-2 is closed.', pendingApproval: null, ... }
    expect(done).toMatchObject({ status: 'COMPLETED', answer: 'Ticket T-2 is closed.', pendingApproval: null });
    expect(desk.closings().filter((c) => c.ticketId === 'T-2')).toEqual([{ ticketId: 'T-2', note: 'Fixed in 1.2.0.', idempotencyKey: 'agent-ledger:close-T-2/r0/t0' }]);

    // 5. The record: the step says who approved it; the request says who decided.
    await catchUp();
    const steps = await queryBus.execute(new GetRunSteps({ runId: 'close-T-2' }));
    // steps.find((s) => s.toolName === 'tickets.close'): { approval: 'granted', outcome: 'succeeded', auditState: 'recorded', ... }
    expect(steps.find((s) => s.toolName === 'tickets.close')).toMatchObject({ approval: 'granted', outcome: 'succeeded', auditState: 'recorded' });
    const decidedRows = await queryBus.execute(new ListApprovals({ runId: 'close-T-2' }));
    // decidedRows.approvals[0]: { state: 'approved', decidedBy: 'bus:ops:alice', reason: 'customer confirmed', ... }
    expect(decidedRows.approvals[0]).toMatchObject({ state: 'approved', decidedBy: 'bus:ops:alice', reason: 'customer confirmed' });

    // A second decision: the run is settled.
    const late = commandBus.execute(new DecideRunApproval({ runId: 'close-T-2', decision: 'deny', principal: alice }));
    // rejects with RunAlreadySettledError: code 'RUN_ALREADY_SETTLED'
    await expect(late).rejects.toBeInstanceOf(RunAlreadySettledError);
  });

  it('DecideRunApproval: a denial with onDenial endRun fails the run; a decision on another round is refused', async () => {
    const bob: Principal = { kind: 'bus', id: 'ops:bob' };
    const started = await commandBus.execute(new StartRun({ principal: { kind: 'bus', id: 'test' }, agent: 'careful-closer', input: { ticketId: 'T-2' }, mode: 'interactive', runId: 'close-T-2-again' }));
    expect(started.status).toBe('WAITING_FOR_APPROVAL');

    const stale = commandBus.execute(new DecideRunApproval({ runId: 'close-T-2-again', decision: 'approve', round: 1, principal: bob }));
    // rejects with ApprovalRoundMismatchError: code 'APPROVAL_ROUND_MISMATCH', expectedRound 1, waitingRound 0
    await expect(stale).rejects.toBeInstanceOf(ApprovalRoundMismatchError);
    await expect(stale).rejects.toMatchObject({ code: 'APPROVAL_ROUND_MISMATCH', expectedRound: 1, waitingRound: 0 });

    const denied = await commandBus.execute(new DecideRunApproval({ runId: 'close-T-2-again', decision: 'deny', principal: bob, reason: 'already closed by hand' }));
    // denied: { status: 'FAILED', run: { reason: 'APPROVAL_DENIED', ... }, auditStatement: 'recorded' }: tickets.close never executed
    expect(denied).toMatchObject({ status: 'FAILED', run: { reason: 'APPROVAL_DENIED' }, auditStatement: 'recorded' });
    expect(desk.closings().filter((c) => c.idempotencyKey.startsWith('agent-ledger:close-T-2-again/'))).toEqual([]);
  });

  // ── The input flow ────────────────────────────────────────────────────────

  it('SubmitRunInput: a tool asks, a person answers, a worker completes the run', async () => {
    const started = await commandBus.execute(new StartRun({ principal: { kind: 'bus', id: 'test' }, agent: 'asker', input: 'close a ticket', mode: 'interactive', runId: 'ask-1' }));
    if (started.mode !== 'interactive') throw new Error('unreachable: mode is interactive');
    // started: { status: 'WAITING_FOR_INPUT', segment: 'waiting', ... }
    // started.run.pendingInput: { stepId: 'ask-1/r0/t0', toolName: 'user.ask', prompt: 'Which ticket should I close?', round: 0, callIndex: 0, requestedAt }
    expect(started).toMatchObject({ status: 'WAITING_FOR_INPUT', segment: 'waiting' });
    expect(started.run.pendingInput).toMatchObject({ stepId: 'ask-1/r0/t0', toolName: 'user.ask', prompt: 'Which ticket should I close?', round: 0, callIndex: 0 });

    // Deciding an approval on it is refused: it waits for input.
    const wrong = commandBus.execute(new DecideRunApproval({ runId: 'ask-1', decision: 'approve', principal: { kind: 'bus', id: 'ops:alice' } }));
    // rejects with RunNotWaitingError: code 'RUN_NOT_WAITING_FOR_APPROVAL', waitingFor 'approval', status 'WAITING_FOR_INPUT'
    await expect(wrong).rejects.toBeInstanceOf(RunNotWaitingError);
    await expect(wrong).rejects.toMatchObject({ code: 'RUN_NOT_WAITING_FOR_APPROVAL', waitingFor: 'approval', status: 'WAITING_FOR_INPUT' });

    const answered = await commandBus.execute(new SubmitRunInput({ runId: 'ask-1', input: 'T-4', principal: { kind: 'bus', id: 'support:carol' } }));
    // answered: { runId: 'ask-1', status: 'QUEUED', auditStatement: 'recorded', run, state }
    expect(answered).toMatchObject({ runId: 'ask-1', status: 'QUEUED', auditStatement: 'recorded' });

    const done = await waitForStatus('ask-1', 'COMPLETED', 'FAILED', 'CANCELLED');
    const { state } = await queryBus.execute(new GetRunState({ runId: 'ask-1' }));
    // done: { status: 'COMPLETED', answer: 'Noted.' }
    // state.steps.get('ask-1/r0/t0')!.result: { question: 'Which ticket should I close?', answer: 'T-4' }
    expect(done).toMatchObject({ status: 'COMPLETED', answer: 'Noted.' });
    expect(state.steps.get('ask-1/r0/t0')?.result).toEqual({ question: 'Which ticket should I close?', answer: 'T-4' });

    const again = commandBus.execute(new SubmitRunInput({ runId: 'close-T-2-again', input: 'T-4', principal: { kind: 'bus', id: 'support:carol' } }));
    // a settled run: rejects with RunAlreadySettledError
    await expect(again).rejects.toBeInstanceOf(RunAlreadySettledError);
  });

  // ── RequeueDeadLetteredRun ────────────────────────────────────────────────

  it('RequeueDeadLetteredRun: a run dead-lettered with a write in flight is continued once the operator states what became of it', async () => {
    const operator: Principal = { kind: 'bus', id: 'ops:dave' };
    // The test's part: a queued run's tickets.close is held mid-call, its lease expires, the reaper fails it WRITE_INTERRUPTED.
    const hold = desk.holdNextClose();
    const { runId } = await commandBus.execute(new StartRun({ principal: { kind: 'bus', id: 'test' }, agent: 'ticket-closer', input: { ticketId: 'T-1' }, runId: 'close-T-1-night' }));
    await hold.entered;
    clock.advance(901_000);
    expect((await app.get(Reaper).reapOnce()).failed).toEqual(['close-T-1-night']);
    hold.release();
    const dead = await waitForStatus(runId, 'FAILED');
    expect(dead).toMatchObject({ reason: 'WRITE_INTERRUPTED', deadLettered: true, inFlightStepId: 'close-T-1-night/r0/t0' });

    // The doc's example.
    const unresolved = commandBus.execute(new RequeueDeadLetteredRun({ runId: 'close-T-1-night', principal: operator }));
    // rejects with InFlightWriteUnresolvedError: code 'IN_FLIGHT_WRITE_UNRESOLVED', stepId 'close-T-1-night/r0/t0', toolName 'tickets.close'
    await expect(unresolved).rejects.toBeInstanceOf(InFlightWriteUnresolvedError);
    await expect(unresolved).rejects.toMatchObject({ code: 'IN_FLIGHT_WRITE_UNRESOLVED', stepId: 'close-T-1-night/r0/t0', toolName: 'tickets.close' });

    const requeued = await commandBus.execute(
      new RequeueDeadLetteredRun({
        runId: 'close-T-1-night',
        principal: operator,
        reason: 'the worker host was restarted',
        resolution: { outcome: 'executed', note: 'T-1 shows the closing note' },
      }),
    );
    // requeued: { runId: 'close-T-1-night', continuationRunId: '<a random UUID>', state }: state is the continuation's, QUEUED
    expect(requeued).toMatchObject({ runId: 'close-T-1-night', continuationRunId: expect.stringMatching(/^[0-9a-f-]{36}$/), state: { status: 'QUEUED' } });
    const continued = await waitForStatus(requeued.continuationRunId, 'COMPLETED', 'FAILED', 'CANCELLED');
    // the continuation: { status: 'COMPLETED', answer: 'Ticket T-1 is closed.' }; tickets.close was not called again
    expect(continued).toMatchObject({ status: 'COMPLETED', answer: 'Ticket T-1 is closed.' });
    expect(desk.closings().filter((c) => c.idempotencyKey === 'agent-ledger:close-T-1-night/r0/t0')).toHaveLength(1);
    const original = await queryBus.execute(new GetRunState({ runId: 'close-T-1-night' }));
    expect(original.run.status).toBe('FAILED'); // a run is settled once: the original stays FAILED

    const twice = commandBus.execute(
      new RequeueDeadLetteredRun({ runId: 'close-T-1-night', principal: operator, resolution: { outcome: 'notExecuted', note: 'changed my mind' } }),
    );
    // rejects with RunAlreadyRequeuedError: code 'RUN_ALREADY_REQUEUED', continuationRunId: requeued.continuationRunId
    await expect(twice).rejects.toBeInstanceOf(RunAlreadyRequeuedError);
    await expect(twice).rejects.toMatchObject({ code: 'RUN_ALREADY_REQUEUED', continuationRunId: requeued.continuationRunId });
    const notDead = commandBus.execute(new RequeueDeadLetteredRun({ runId: 'close-T-1', principal: operator }));
    // rejects with RunNotDeadLetteredError: code 'RUN_NOT_DEAD_LETTERED', status 'COMPLETED'
    await expect(notDead).rejects.toBeInstanceOf(RunNotDeadLetteredError);
    await expect(notDead).rejects.toMatchObject({ code: 'RUN_NOT_DEAD_LETTERED', status: 'COMPLETED' });

    await catchUp();
    const night = await queryBus.execute(new GetAuditReview({ runId: 'close-T-1-night' }));
    // night.interruptedWrites: [{ runId: 'close-T-1-night', stepId: 'close-T-1-night/r0/t0', ... }]
    expect(night.interruptedWrites).toEqual([expect.objectContaining({ runId: 'close-T-1-night', stepId: 'close-T-1-night/r0/t0' })]);
  });

  // ── The read models' queries ──────────────────────────────────────────────

  it('GetRun, ListRuns, GetRunSteps, GetAuditReview, GetProjectionStatus answer from the read models', async () => {
    await app.get(ProjectionRunnerPool).catchUp();

    const row = await queryBus.execute(new GetRun({ runId: 'close-T-1' }));
    // row: { runId: 'close-T-1', agent: 'ticket-closer', status: 'COMPLETED', reason: 'COMPLETED', finalAnswer: 'Ticket T-1 is closed.', stepsTotal: 3, nonIdempotentWriteSteps: 1, ... }
    expect(row).toMatchObject({ runId: 'close-T-1', agent: 'ticket-closer', status: 'COMPLETED', reason: 'COMPLETED', finalAnswer: 'Ticket T-1 is closed.', stepsTotal: 3, nonIdempotentWriteSteps: 1 });
    expect(await queryBus.execute(new GetRun({ runId: 'never-requested' }))).toBeNull();
    // new GetRun({ runId: '../x' }): rejects with MessageValidationError: field 'runId', rule 'matches'
    await expect(queryBus.execute(new GetRun({ runId: '../x' }))).rejects.toMatchObject({ constructor: MessageValidationError, field: 'runId', rule: 'matches' });
    // The run id alone, the shape GetRun and GetRunSteps had before, is still accepted.
    expect(await queryBus.execute(new GetRun('close-T-1'))).toEqual(row);

    const page = await queryBus.execute(new ListRuns({ agent: 'careful-closer', limit: 1 }));
    // page: { runs: [<the newest careful-closer run>], nextCursor: '<opaque>' }
    const next = await queryBus.execute(new ListRuns({ agent: 'careful-closer', limit: 1, cursor: page.nextCursor ?? undefined }));
    // next: { runs: [<the one before>], nextCursor: null }
    expect(page.runs).toHaveLength(1);
    expect(page.nextCursor).toEqual(expect.any(String));
    expect(next.runs).toHaveLength(1);
    expect(next.nextCursor).toBeNull();
    expect([...page.runs, ...next.runs].map((r) => r.runId).sort()).toEqual(['close-T-2', 'close-T-2-again']);
    const denied = await queryBus.execute(new ListRuns({ status: 'FAILED', reason: 'APPROVAL_DENIED' }));
    // denied.runs: [<close-T-2-again>]
    expect(denied.runs.map((r) => r.runId)).toEqual(['close-T-2-again']);

    const steps = await queryBus.execute(new GetRunSteps({ runId: 'close-T-1' }));
    // steps: [{ stepId: 'close-T-1/r0/llm', kind: 'llm', ... }, { stepId: 'close-T-1/r0/t0', kind: 'tool', toolName: 'tickets.close', effect: 'NON_IDEMPOTENT_WRITE',
    //   idempotencyKey: 'agent-ledger:close-T-1/r0/t0', approval: 'preApproved', auditState: 'recorded', ... }, { stepId: 'close-T-1/r1/llm', kind: 'llm', ... }]
    expect(steps.map((s) => s.stepId)).toEqual(['close-T-1/r0/llm', 'close-T-1/r0/t0', 'close-T-1/r1/llm']);
    expect(await queryBus.execute(new GetRunSteps({ runId: 'never-requested' }))).toEqual([]);
    expect(await queryBus.execute(new GetRunSteps('close-T-1'))).toEqual(steps);
    expect(steps[1]).toMatchObject({
      kind: 'tool',
      toolName: 'tickets.close',
      effect: 'NON_IDEMPOTENT_WRITE',
      idempotencyKey: 'agent-ledger:close-T-1/r0/t0',
      approval: 'preApproved',
      auditState: 'recorded',
    });

    const review = await queryBus.execute(new GetAuditReview({ runId: 'close-T-1' }));
    // review.totals: { writes: 1, writesExecuted: 1, writesAudited: 1, writesWithoutAudit: 0, ... }
    expect(review.totals).toMatchObject({ writes: 1, writesExecuted: 1, writesAudited: 1, writesWithoutAudit: 0 });
    const all = await queryBus.execute(new GetAuditReview());
    // all.totals.approvalsGranted: 1, all.totals.approvalsDenied: 1 (the two decisions above)
    expect(all.totals).toMatchObject({ approvalsGranted: 1, approvalsDenied: 1 });

    const status = await queryBus.execute(new GetProjectionStatus());
    // status: one entry per projection and source: { projection: 'runStatus', source: 'runs', eventsApplied, caughtUp: true, rebuilding: false, ... }, ...
    expect(status.map((s) => s.projection).sort()).toEqual(['approvals', 'auditReview', 'runStatus', 'steps']);
    expect(status.every((s) => s.source === 'runs' && s.caughtUp === true && s.rebuilding === false)).toBe(true);
  });

  it('the read models\' queries refuse a bad filter, naming it inside `query`', async () => {
    // new ListRuns({ limit: 0 }): rejects with MessageValidationError: field 'query.limit', rule 'min'
    await expect(queryBus.execute(new ListRuns({ limit: 0 }))).rejects.toMatchObject({ constructor: MessageValidationError, field: 'query.limit', rule: 'min' });
    await expect(queryBus.execute(new ListApprovals({ state: 'open' as never }))).rejects.toMatchObject({ constructor: MessageValidationError, field: 'query.state' });
    await expect(queryBus.execute(new GetRun({ runId: '../x' }))).rejects.toMatchObject({ constructor: MessageValidationError, field: 'runId', rule: 'matches' });
  });
});

describe('docs/library.md: without read models, the read-model queries have no handler', () => {
  it('AgentLedgerRuntimeModule answers GetRunState; GetRun rejects with QueryHandlerNotFoundException', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agent-ledger-library-doc-'));
    const store = SqliteEventStore.open({ path: join(dir, 'agent-ledger.sqlite') });
    @Module({
      imports: [
        AgentLedgerRuntimeModule.forRoot({
          store,
          agents: TICKET_AGENTS,
          workers: { concurrency: 0 },
          reaper: { intervalMs: 0 },
          auditGapSaga: { enabled: false },
        }),
        TicketsModule,
      ],
    })
    class RuntimeOnlyHost {}
    const app = await NestFactory.createApplicationContext(RuntimeOnlyHost, { logger: false });
    try {
      const commandBus = app.get(CommandBus);
      const queryBus = app.get(QueryBus);
      const { runId } = await commandBus.execute(new StartRun({ principal: { kind: 'bus', id: 'test' }, agent: 'ticket-closer', input: { ticketId: 'T-1' }, runId: 'no-read-models' }));
      expect((await queryBus.execute(new GetRunState({ runId }))).run.status).toBe('QUEUED');
      await expect(queryBus.execute(new GetRun({ runId }))).rejects.toBeInstanceOf(QueryHandlerNotFoundException);
      await expect(queryBus.execute(new ListApprovals())).rejects.toBeInstanceOf(QueryHandlerNotFoundException);
    } finally {
      await app.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
