import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { LoggerService } from '@nestjs/common';
import { ConsoleLogger, Logger } from '@nestjs/common';
import type { RunEvent } from '@agent-ledger/domain';
import { busPrincipal, isTerminalRunEvent } from '@agent-ledger/domain';
import type { EventStore, EventStoreDbReconnectOptions, RecordedEvent } from '@agent-ledger/event-store';
import { EventStoreDbEventStore, eventTypeFilter } from '@agent-ledger/event-store';
import type { ProjectionSource } from '@agent-ledger/projections';
import { ALL_PROJECTIONS, PROJECTED_EVENTS_FILTER, ProjectionQueries, ProjectionRunner, ProjectionStore } from '@agent-ledger/projections';
import type { Gate, RuntimeHarness, RuntimeHarnessOptions, TestAgent } from '@agent-ledger/runtime/testing';
import { eventually, ManualClock, startRuntime, stateOf, ToolBehaviour } from '@agent-ledger/runtime/testing';
import type { StoreFixture } from '@agent-ledger/runtime/testing';
import type { EsdbTestServer } from '../../support/esdb-server';
import { startEsdbTestServer } from '../../support/esdb-server';
import { scaled } from '../../support/time-scale';

const call = (tool: string, value = 'x') => ({ tool, arguments: { value } });

/** The agents of the fault tests: one per kind of step that a fault can hit. */
export const FAULT_AGENTS: TestAgent[] = [
  { name: 'reader', script: [{ toolCalls: [call('test.read')] }, { final: 'read it' }] },
  { name: 'putter', script: [{ toolCalls: [call('test.read'), call('test.put')] }, { final: 'put it' }] },
  { name: 'appender', script: [{ toolCalls: [call('test.read'), call('test.append')] }, { final: 'appended' }] },
  { name: 'two-rounds', script: [{ toolCalls: [call('test.read', 'a')] }, { toolCalls: [call('test.put', 'b')] }, { final: 'done' }] },
];

/** One second, in ms. */
export const SECOND = 1000;

// --- logs -----------------------------------------------------------------------------------

/** The runtime's log lines of one test, kept instead of printed (a store outage logs every failed claim). */
export interface CapturedLogs {
  readonly errors: string[];
  readonly warnings: string[];
  /** Whether an error or warning line matches. */
  has(pattern: RegExp): boolean;
  restore(): void;
}

/**
 * Captures Nest's log lines (errors and warnings kept, the rest dropped) until
 * `restore()`. Call it after `startRuntime`: compiling a testing module
 * installs the testing logger.
 */
export function captureLogs(): CapturedLogs {
  const errors: string[] = [];
  const warnings: string[] = [];
  const text = (message: unknown) => (typeof message === 'string' ? message : message instanceof Error ? message.message : JSON.stringify(message));
  const logger: LoggerService = {
    log: () => undefined,
    debug: () => undefined,
    verbose: () => undefined,
    error: (message: unknown) => void errors.push(text(message)),
    warn: (message: unknown) => void warnings.push(text(message)),
  };
  Logger.overrideLogger(logger);
  return {
    errors,
    warnings,
    has: (pattern) => errors.some((m) => pattern.test(m)) || warnings.some((m) => pattern.test(m)),
    restore: () => Logger.overrideLogger(new ConsoleLogger()),
  };
}

// --- EventStoreDB stores whose servers the test can stop ----------------------------------------

/** The store of an EventStoreDB test: one server the test may stop and start. */
export interface EsdbStores {
  readonly fixture: StoreFixture;
  readonly server: EsdbTestServer;
  close(): Promise<void>;
}

/**
 * One protocol-level EventStoreDB server holding the run and the audit
 * streams, through ONE adapter instance (`auditStore` = `runStore`), which is
 * how the service runs on EventStoreDB. The adapter's resubscription policy is
 * the test's.
 *
 * Not two servers with a client each, as the runtime harness starts them:
 * with client 6.2.1, when one client's batch-append call fails, the other
 * client's pending appends are rejected too (a module-global promise map), and
 * the other server's late reply then throws a TypeError inside the client's
 * stream handler (an uncaught exception) and leaves that client's appends
 * hanging. See test/faults/README.md.
 */
export async function startEsdbStores(reconnect: EventStoreDbReconnectOptions): Promise<EsdbStores> {
  const server = await startEsdbTestServer();
  let store: EventStore | null = null;
  const fixture: StoreFixture = {
    kind: 'eventstoredb',
    open: () => {
      store ??= EventStoreDbEventStore.connect({ connectionString: server.connectionString, reconnect });
      return { runStore: store, auditStore: store };
    },
    breakAuditStore() {
      throw new Error('the audit streams share the run store here');
    },
    async close() {
      await store?.close();
      await server.stop();
    },
  };
  return { fixture, server, close: () => fixture.close() };
}

/**
 * The runtime harness on stores the test built ({@link startEsdbStores}):
 * `startRuntime` reuses the stores, clock and tool behaviour of the harness it
 * is `sharedWith`, which is all this one carries. The test closes the stores.
 */
export function startRuntimeOn(fixture: StoreFixture, options: Omit<RuntimeHarnessOptions, 'store' | 'storeDir' | 'sharedWith'>): Promise<RuntimeHarness> {
  const shared = { stores: fixture, clock: new ManualClock(), behaviour: new ToolBehaviour() } as unknown as RuntimeHarness;
  return startRuntime({ ...options, store: fixture.kind, sharedWith: shared });
}

// --- projections --------------------------------------------------------------------------------

/** Live projection runners on the harness's two stores, with their read-model file. */
export interface LiveProjections {
  readonly store: ProjectionStore;
  readonly sources: readonly ProjectionSource[];
  readonly runners: readonly ProjectionRunner[];
  readonly queries: ProjectionQueries;
  /** Waits until every projection's checkpoint is at its source's head. */
  caughtUp(timeoutMs?: number): Promise<void>;
  /**
   * Rebuilds every projection from scratch into a fresh file and compares:
   * the tables, and for each projection and source the events applied with
   * the number of events of the source; each runner read each event once.
   */
  compareWithRebuild(): Promise<ProjectionComparison>;
  close(): Promise<void>;
}

/** What {@link LiveProjections.compareWithRebuild} found. */
export interface ProjectionComparison {
  readonly live: Record<string, unknown[]>;
  readonly rebuilt: Record<string, unknown[]>;
  /** `<projection>@<source>` -> events applied, live. */
  readonly liveApplied: Record<string, number>;
  /** `<projection>@<source>` -> events applied by the rebuild from scratch. */
  readonly rebuiltApplied: Record<string, number>;
  /** `<source>` -> events of the source that the projections take (run and audit categories). */
  readonly sourceEvents: Record<string, number>;
  /** `<projection>@<source>` -> events of the source whose type the projection handles (all, unless it names its types). */
  readonly handledEvents: Record<string, number>;
  /** `<source>` -> events the live runner read since it started (more than the source holds = a duplicate delivery). */
  readonly eventsRead: Record<string, number>;
  /** `<source>` -> failures of the live runner (each one a resubscription from its checkpoint). */
  readonly runnerFailures: Record<string, number>;
  /** Rows per live table. */
  readonly rows: Record<string, number>;
}

/** Starts projection runners (short retry delay) on the run and audit stores, in a read-model file of their own. */
export async function startProjections(runStore: EventStore, auditStore: EventStore): Promise<LiveProjections> {
  const dir = mkdtempSync(join(tmpdir(), 'agent-ledger-faults-projections-'));
  const store = ProjectionStore.open({ path: join(dir, 'read-models.sqlite') });
  // One store holding both categories is one source (as the service configures it): two would project each event twice.
  const sources: ProjectionSource[] =
    auditStore === runStore
      ? [{ name: 'runs', store: runStore }]
      : [
          { name: 'runs', store: runStore },
          { name: 'audit', store: auditStore },
        ];
  const runners = sources.map((source) => new ProjectionRunner(store, source, { batchSize: 16, retryDelayMs: 50 }));
  for (const runner of runners) await runner.start();
  const queries = new ProjectionQueries(store, sources);
  return {
    store,
    sources,
    runners,
    queries,
    async caughtUp(timeoutMs = 20_000) {
      await eventually(async () => ((await queries.projectionStatus()).every((s) => s.caughtUp === true) ? true : undefined), timeoutMs, 'the projections to catch up');
    },
    async compareWithRebuild() {
      const rebuiltDir = mkdtempSync(join(tmpdir(), 'agent-ledger-faults-rebuild-'));
      const rebuilt = ProjectionStore.open({ path: join(rebuiltDir, 'read-models.sqlite') });
      try {
        for (const source of sources) await new ProjectionRunner(rebuilt, source).catchUp();
        const applied = (s: ProjectionStore) => Object.fromEntries(s.checkpoints().map((c) => [`${c.projection}@${c.source}`, c.eventsApplied]));
        const sourceEvents: Record<string, number> = {};
        const handledEvents: Record<string, number> = {};
        for (const source of sources) {
          const events = await eventsOf(source.store);
          sourceEvents[source.name] = events.length;
          for (const projection of ALL_PROJECTIONS) {
            const types = projection.eventTypes;
            handledEvents[`${projection.name}@${source.name}`] = types === undefined ? events.length : events.filter((e) => (types as ReadonlySet<string>).has(e.type)).length;
          }
        }
        const live = store.dumpTables();
        return {
          live,
          rebuilt: rebuilt.dumpTables(),
          liveApplied: applied(store),
          rebuiltApplied: applied(rebuilt),
          sourceEvents,
          handledEvents,
          eventsRead: Object.fromEntries(runners.map((r) => [r.source.name, r.stats().eventsRead])),
          runnerFailures: Object.fromEntries(runners.map((r) => [r.source.name, r.stats().failures])),
          rows: Object.fromEntries(Object.entries(live).map(([table, rows]) => [table, rows.length])),
        };
      } finally {
        rebuilt.close();
        rmSync(rebuiltDir, { recursive: true, force: true });
      }
    },
    async close() {
      for (const runner of runners) await runner.stop();
      store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Every event of a store that the projections take, in `$all` order. */
export async function eventsOf(store: EventStore): Promise<RecordedEvent[]> {
  const events: RecordedEvent[] = [];
  for await (const event of store.readAll({ filter: PROJECTED_EVENTS_FILTER })) events.push(event);
  return events;
}

/** The assertions every comparison must pass: same rows, each event applied once by each projection that handles its type, read once by each runner. */
export function expectSameAsRebuild(comparison: ProjectionComparison): void {
  expect(comparison.live).toEqual(comparison.rebuilt);
  expect(comparison.liveApplied).toEqual(comparison.rebuiltApplied);
  for (const [key, applied] of Object.entries(comparison.liveApplied)) {
    expect([key, applied]).toEqual([key, comparison.handledEvents[key]]);
  }
  expect(comparison.eventsRead).toEqual(comparison.sourceEvents);
}

// --- driving the queue to the end -----------------------------------------------------------

/**
 * Drives every run the queue index knows to a terminal status after a fault:
 * waits until the workers are idle and nothing is due, then moves the clock
 * past any lease and backoff and lets the reaper take back what a fault left
 * running. With `byHand`, segments are run here (`runOnce`) instead of by the
 * harness's worker loops.
 *
 * @returns how many reaper passes and segments it took.
 */
export async function settleEverything(rt: RuntimeHarness, options: { readonly byHand?: boolean; readonly timeoutMs?: number } = {}): Promise<{ reaped: number; segments: number }> {
  const deadline = Date.now() + scaled(options.timeoutMs ?? 60_000);
  let reaped = 0;
  let segments = 0;
  for (;;) {
    if (Date.now() > deadline) throw new Error(`Runs still unsettled: ${JSON.stringify(rt.index.counts())}`);
    if (options.byHand === true) {
      while ((await rt.workers.runOnce()) !== null) segments++;
    }
    await eventually(() => (rt.workers.inProgress === 0 && rt.index.dueQueued(rt.clock.now()).length === 0 ? true : undefined), 30_000, 'the workers to be idle');
    const counts = rt.index.counts();
    if (counts.queued === 0 && counts.running === 0) return { reaped, segments };
    rt.clock.advance(1_000 * SECOND); // past any lease (900 s) and backoff (at most 600 s)
    const report = await rt.reaper.reapOnce();
    reaped += report.requeued.length + report.failed.length + report.cancelled.length;
    await eventually(() => (rt.index.counts().running === 0 || rt.index.dueQueued(rt.clock.now()).length > 0 ? true : undefined), 10_000, 'the reaped runs in the index').catch(() => undefined);
  }
}

// --- what became of each run ----------------------------------------------------------------

/** A run's outcome, from its stored events. */
export interface RunOutcome {
  readonly runId: string;
  readonly agent: string;
  readonly status: string | null;
  readonly reason: string | null;
  readonly deadLettered: boolean | null;
  readonly failureCode: string | null;
  readonly failureClass: string | null;
  readonly terminalEvents: number;
  readonly attempts: number;
  readonly requeues: number;
  readonly events: readonly RunEvent[];
}

/** Reads a run's stream and says how it ended. */
export async function outcomeOf(rt: RuntimeHarness, runId: string): Promise<RunOutcome> {
  const events = await rt.runEvents(runId);
  const state = stateOf(events);
  const failed = events.find((e) => e.type === 'RunFailed') as Extract<RunEvent, { type: 'RunFailed' }> | undefined;
  return {
    runId,
    agent: state.agent ?? '?',
    status: state.status,
    reason: state.settlement?.reason ?? null,
    deadLettered: state.settlement?.deadLettered ?? null,
    failureCode: failed?.data.failure.code ?? null,
    failureClass: failed?.data.failure.failureClass ?? null,
    terminalEvents: events.filter(isTerminalRunEvent).length,
    attempts: state.attempt,
    requeues: state.requeues,
    events,
  };
}

/** The test tools that only read (`READ_ONLY`, no approval asked): their start may be stored after them, with their result. */
const READ_TOOLS = new Set(['test.read', 'test.ask']);

/**
 * The guarantees of docs/guarantees.md that a store fault could
 * break, checked on the stored events and on what the test tools saw:
 * one terminal event per run; no `NON_IDEMPOTENT_WRITE` executed twice for a
 * step; no write executed more often than it was started (a completed step is
 * never started again, so never executed again); every executed write has its
 * audit event, or its run failed as not retryable. A read may have run more
 * often than it was started: where a step's records go in one commit, its
 * start is stored with its result, after the read, and a read whose commit
 * failed left no start (it runs again; it changes nothing).
 */
export async function expectRunInvariants(rt: RuntimeHarness, runIds: readonly string[]): Promise<void> {
  const notRetried = new Set(['AUDIT_PERSISTENCE_FAILED', 'WRITE_INTERRUPTED', 'AUDIT_MISSING', 'NOT_RETRYABLE']);
  const records = await Promise.all(runIds.map(async (runId) => ({ runId, outcome: await outcomeOf(rt, runId), audits: await rt.auditEvents(runId) })));
  for (const { runId, outcome, audits } of records) {
    expect([runId, outcome.terminalEvents]).toEqual([runId, 1]);
    const state = stateOf(outcome.events);
    const audited = new Set(audits.map((e) => (e.data as { stepId?: string }).stepId));
    const executions = rt.behaviour.executions.filter((e) => e.runId === runId);
    for (const stepId of new Set(executions.map((e) => e.stepId))) {
      const count = executions.filter((e) => e.stepId === stepId).length;
      const step = state.steps.get(stepId);
      if (!READ_TOOLS.has(executions.find((e) => e.stepId === stepId)?.tool ?? '')) expect([stepId, count <= (step?.starts ?? 0)]).toEqual([stepId, true]);
      if (step?.effect === 'NON_IDEMPOTENT_WRITE') expect([stepId, count]).toEqual([stepId, 1]);
      if (step?.effect === 'IDEMPOTENT_WRITE' || step?.effect === 'NON_IDEMPOTENT_WRITE') {
        const ok = audited.has(stepId) || notRetried.has(outcome.reason ?? '');
        expect([stepId, 'audited or failed not retryable', ok]).toEqual([stepId, 'audited or failed not retryable', true]);
      }
    }
  }
}

/** Counts outcomes as `STATUS/REASON` -> runs. */
export function tally(outcomes: readonly RunOutcome[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const o of outcomes) {
    const key = `${o.status}/${o.reason}`;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

/** Prints a test's figures when `FAULT_FIGURES=1` (for test/faults/README.md). */
export function reportFigures(title: string, figures: Record<string, unknown>): void {
  if (process.env.FAULT_FIGURES === '1') process.stdout.write(`FAULT FIGURES ${title}: ${JSON.stringify(figures)}\n`);
}

/** Waits until `runId` is due in the queue index, then runs one segment of it here. */
export async function runQueued(rt: RuntimeHarness, runId: string): Promise<void> {
  await eventually(() => (rt.index.dueQueued(rt.clock.now()).includes(runId) ? true : undefined), 10_000, `${runId} to be due`);
  const ran = await rt.workers.runOnce();
  if (ran !== runId) throw new Error(`Expected a segment of ${runId}, ran ${String(ran)}`);
}

/**
 * Three queued runs, `parked-reader`, `parked-putter` and `parked-appender`,
 * each parked inside its tool call (a read; an idempotent write and a
 * non-idempotent one, each after its fence). `release` lets them go on and
 * resolves when their segments have ended.
 */
export async function parkRunsInToolCalls(rt: RuntimeHarness): Promise<{ release(): Promise<void> }> {
  const segments: Array<Promise<void>> = [];
  const gates: Gate[] = [];
  for (const [agent, tool] of [
    ['reader', 'test.read'],
    ['putter', 'test.put'],
    ['appender', 'test.append'],
  ] as const) {
    const gate = rt.behaviour.blockNext(tool);
    const runId = await rt.runs.enqueue({ requestedBy: { kind: 'bus', id: 'test' }, agent, input: 'parked', runId: `parked-${agent}` });
    segments.push(runQueued(rt, runId));
    await gate.reached;
    gates.push(gate);
  }
  return {
    release: async () => {
      for (const gate of gates) gate.release();
      await Promise.all(segments);
    },
  };
}

/**
 * While the audit store refuses appends (and the run store works): a write's
 * audit fails its run closed, interactive (`FAILED`) or queued (dead-lettered),
 * never retried, the write executed once; a read-only run completes with its
 * audits fail-soft; reads of both stores go on.
 *
 * @returns the ids of the runs it started.
 */
export async function expectAuditRefused(rt: RuntimeHarness, prefix: string, audited: { readonly runId: string; readonly audits: number }): Promise<string[]> {
  const append = (await rt.runs.runInteractive({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'appender', input: 'append', runId: `${prefix}-append` })).runId;
  const put = await rt.runs.enqueue({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'putter', input: 'put', runId: `${prefix}-put` });
  await runQueued(rt, put);
  rt.clock.advance(1_000 * SECOND);
  expect(await rt.reaper.reapOnce()).toMatchObject({ requeued: [], failed: [], cancelled: [] });
  expect(await rt.workers.runOnce()).toBeNull();
  for (const runId of [append, put]) {
    const outcome = await outcomeOf(rt, runId);
    expect(outcome).toMatchObject({ status: 'FAILED', reason: 'AUDIT_PERSISTENCE_FAILED', failureClass: 'unknown', terminalEvents: 1, requeues: 0, attempts: 1 });
    expect(outcome.events.slice(-3).map((e) => e.type)).toEqual(['StepStarted', 'ToolExecuted', 'RunFailed']);
    expect((await rt.auditEvents(runId)).length).toBe(0);
  }
  expect((await outcomeOf(rt, put)).deadLettered).toBe(true);
  expect(rt.behaviour.executions.filter((e) => e.runId === append || e.runId === put).map((e) => e.tool)).toEqual(['test.read', 'test.append', 'test.read', 'test.put']);
  const read = (await rt.runs.runInteractive({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'reader', input: 'read', runId: `${prefix}-read` })).runId;
  expect(await outcomeOf(rt, read)).toMatchObject({ status: 'COMPLETED', terminalEvents: 1 });
  // Reads go on: the run's state, its stream, an audit stream written before.
  expect((await rt.runs.get(append)).settlement?.reason).toBe('AUDIT_PERSISTENCE_FAILED');
  expect((await rt.runStore.readStream(`run-${read}`)).streamExists).toBe(true);
  expect((await rt.auditEvents(audited.runId)).length).toBe(audited.audits);
  return [append, put, read];
}

/**
 * Polls the store with a read until it answers (a restarted EventStoreDB
 * server: the client's channel reconnects with a back-off of its own, so the
 * first calls after the restart may still fail with `StoreUnavailableError`).
 *
 * @returns how long it took, in ms.
 */
export async function waitUntilStoreAnswers(store: EventStore, timeoutMs = 30_000): Promise<number> {
  const started = Date.now();
  await eventually(
    async () => {
      try {
        await store.readStream('faultprobe-reachable');
        return true;
      } catch (error) {
        if ((error as { code?: unknown }).code === 'STORE_UNAVAILABLE') return undefined;
        throw error;
      }
    },
    timeoutMs,
    'the store to answer again',
  );
  return Date.now() - started;
}

/**
 * Each decision to fail a run closed (a write's audit refused) is accounted
 * for: its run ended `AUDIT_PERSISTENCE_FAILED`, or the store refused that
 * failure too ("could not be recorded"), and then a later segment stored the
 * write's audit before the run went on (invariant 3: the write has its audit;
 * it was never executed again). The metric counts the decisions.
 */
export async function expectFailClosedDecisionsAccountedFor(rt: RuntimeHarness, logs: CapturedLogs, outcomes: readonly RunOutcome[]): Promise<void> {
  const decisions = logs.errors.flatMap((m) => {
    const found = /write step (\S+) \(tool \S+, \w+\) of run (\S+) was not stored; the run fails closed/.exec(m);
    return found === null ? [] : [{ stepId: found[1] as string, runId: found[2] as string }];
  });
  expect(rt.metrics.get('auditFailClosed')).toBe(decisions.length);
  const unrecorded = new Set(logs.errors.flatMap((m) => /The failure of run (\S+) could not be recorded/.exec(m)?.[1] ?? []));
  for (const { runId, stepId } of decisions) {
    const outcome = outcomes.find((o) => o.runId === runId);
    if (outcome?.reason === 'AUDIT_PERSISTENCE_FAILED') continue;
    const audited = (await rt.auditEvents(runId)).some((e) => (e.data as { stepId?: string }).stepId === stepId);
    expect({ runId, stepId, reason: outcome?.reason, failureUnrecorded: unrecorded.has(runId), audited }).toEqual({ runId, stepId, reason: outcome?.reason, failureUnrecorded: true, audited: true });
  }
  expect(outcomes.filter((o) => o.reason === 'AUDIT_PERSISTENCE_FAILED').every((o) => decisions.some((d) => d.runId === o.runId))).toBe(true);
}

/** What {@link settleAfterOutage} found. */
export interface OutageSettlement {
  /** The first settling's figures. */
  readonly settled: { reaped: number; segments: number };
  /** Every run's outcome after the first settling. */
  readonly outcomes: readonly RunOutcome[];
  /** The continuations an operator requeued (dead-lettered `STORE_UNAVAILABLE` runs), all completed. */
  readonly continuations: readonly string[];
  /** The runs failed closed (`AUDIT_PERSISTENCE_FAILED`). */
  readonly failClosed: readonly RunOutcome[];
  /** The steps of the failed-closed writes whose audit is not in the audit store: the saga's gaps to report. */
  readonly gaps: readonly string[];
}

/**
 * After a store outage: settles every run; requeues, as an operator, each
 * run dead-lettered because the store was unavailable (its continuation must
 * complete); checks that every run ended as the rules allow (completed, the
 * store's refusal, an audit that could not be stored, a non-idempotent write
 * interrupted), that each fail-closed decision is accounted for, the run
 * invariants, and an empty queue. Returns the outcomes and the saga's gaps.
 */
export async function settleAfterOutage(rt: RuntimeHarness, logs: CapturedLogs, runIds: readonly string[]): Promise<OutageSettlement> {
  const settled = await settleEverything(rt);
  // A failure recorded in the instant the server came back dead-letters its run: an operator requeues it.
  const outcomes = await Promise.all(runIds.map((id) => outcomeOf(rt, id)));
  const continuations: string[] = [];
  for (const outcome of outcomes.filter((o) => o.reason === 'NOT_RETRYABLE')) {
    expect(outcome).toMatchObject({ failureCode: 'STORE_UNAVAILABLE', deadLettered: true });
    continuations.push((await rt.runs.requeue(outcome.runId, { requestedBy: busPrincipal('operator'), reason: 'store back' })).continuationRunId);
  }
  await settleEverything(rt);
  for (const outcome of outcomes) {
    const allowed =
      outcome.reason === 'COMPLETED' ||
      outcome.reason === 'NOT_RETRYABLE' ||
      // A write's audit that met the outage: fail-closed, by the rules.
      outcome.reason === 'AUDIT_PERSISTENCE_FAILED' ||
      (outcome.reason === 'WRITE_INTERRUPTED' && outcome.events.some((e) => e.type === 'RunFailed' && e.data.inFlightWrite?.effect === 'NON_IDEMPOTENT_WRITE'));
    expect([outcome.runId, outcome.reason, allowed]).toEqual([outcome.runId, outcome.reason, true]);
  }
  await expectFailClosedDecisionsAccountedFor(rt, logs, outcomes);
  for (const o of await Promise.all(continuations.map((id) => outcomeOf(rt, id)))) expect([o.runId, o.status]).toEqual([o.runId, 'COMPLETED']);
  await expectRunInvariants(rt, [...runIds, ...continuations]);
  expect(rt.index.counts()).toEqual({ queued: 0, running: 0, waiting: 0 });
  const failClosed = outcomes.filter((o) => o.reason === 'AUDIT_PERSISTENCE_FAILED');
  const gaps: string[] = [];
  for (const o of failClosed) {
    const write = [...o.events].reverse().find((e) => e.type === 'ToolExecuted' && e.data.effect !== 'READ_ONLY');
    const stepId = write?.type === 'ToolExecuted' ? write.data.stepId : '?';
    // An audit append refused with a lost connection may still have been written (an ambiguous commit): then there is no gap.
    if (!(await rt.auditEvents(o.runId)).some((e) => (e.data as { stepId?: string }).stepId === stepId)) gaps.push(stepId);
  }
  return { settled, outcomes, continuations, failClosed, gaps };
}

/** The last event of `type` in `store`'s `$all`. */
export async function lastOfType(store: EventStore, type: string): Promise<RecordedEvent | undefined> {
  let last: RecordedEvent | undefined;
  for await (const event of store.readAll({ filter: eventTypeFilter(type) })) last = event;
  return last;
}

/** The saga's durable state: unmatched writes and audits, read from its own file. */
export function sagaLeftovers(rt: RuntimeHarness): { pendingWrites: number; unmatchedAudits: number } {
  const db = new Database(join(rt.sagaDir, 'audit-gap-saga.sqlite'), { readonly: true });
  try {
    return {
      pendingWrites: (db.prepare('SELECT COUNT(*) AS n FROM pending_writes').get() as { n: number }).n,
      unmatchedAudits: (db.prepare('SELECT COUNT(*) AS n FROM audited_steps').get() as { n: number }).n,
    };
  } finally {
    db.close();
  }
}

/**
 * The saga resumed without loss or duplicate: its checkpoints reach the last
 * `ToolExecuted` of the run store and the last `AuditRecorded` of the audit
 * store; once every grace period is over, it reports exactly `gaps` (each
 * once) and nothing is left in its ledger. A write delivered again after its
 * audit matched it would be pending again (a false gap, `found` by the
 * deadline check); an audit delivered again would stay unmatched; a lost
 * write or audit would leave its partner.
 */
export async function expectSagaCaughtUp(rt: RuntimeHarness, gaps: readonly string[]): Promise<void> {
  const lastWrite = await lastOfType(rt.runStore, 'ToolExecuted');
  const lastAudit = await lastOfType(rt.auditStore, 'AuditRecorded');
  await eventually(
    () => (rt.saga.checkpoint('writes') === lastWrite?.position && rt.saga.checkpoint('audits') === lastAudit?.position ? true : undefined),
    20_000,
    'the saga to reach both heads',
  );
  rt.clock.advance(3_600 * SECOND);
  const check = await rt.saga.checkDeadlines();
  expect(check.found).toEqual([]);
  expect([...check.reported].sort()).toEqual([...gaps].sort());
  expect(sagaLeftovers(rt)).toEqual({ pendingWrites: 0, unmatchedAudits: 0 });
}
