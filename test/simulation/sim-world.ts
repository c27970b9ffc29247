import type { LoggerService } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { TestingModule } from '@nestjs/testing';
import type { AuditEvent, DecisionStatement, RunCommand, RunEvent, RunState } from '@agent-ledger/domain';
import { AgentLedgerError, busPrincipal, canonicalSha256, isAuditEventType, isRunEventType, isTerminalRunEvent } from '@agent-ledger/domain';
import type { CrashPointContext } from '@agent-ledger/crash-points';
import { CrashPoint, crashPoint, installCrashPointHandler } from '@agent-ledger/crash-points';
import type { AgentTool, ModelProvider, RunCommandOutcome, RuntimeCounter } from '@agent-ledger/runtime';
import {
  agentCatalogOf,
  AuditGapSaga,
  AuditRecorder,
  ExecutionModule,
  Reaper,
  RunCommandProcessor,
  RunService,
  RuntimeMetrics,
  ScriptedModelProvider,
  TOOL_CATALOG,
  ToolRegistry,
  WorkerPool,
  auditStreamName,
  runStreamName,
} from '@agent-ledger/runtime';
import type { Execution, TestAgent } from '@agent-ledger/runtime/testing';
import { ManualClock, testTools, ToolBehaviour } from '@agent-ledger/runtime/testing';
import { toDomainEvents } from '@agent-ledger/runtime';
import { StepAppender } from '@agent-ledger/runtime/persistence/step-appender';
import { TOOL_EFFECTS } from './invariants';
import { MODEL_DOWN_AGENTS, SIM_AGENTS, toolsOf } from './sim-agents';
import type { Action, AuditPlacement, BasicAction, PauseAfter, SettlePlan, Slot } from './sim-model';
import { describeAction, LEASE_MS } from './sim-model';
import { SimStore } from './sim-store';

/** The saga's grace period in the simulation (the product's default). */
export const GRACE_MS = 60_000;
/** How far the settle phase moves the clock each round: past every lease (900 s), backoff (at most 600 s) and grace period. */
const SETTLE_ADVANCE_MS = LEASE_MS + 100_000;
/** Settle rounds before a run still open counts as lost. */
const MAX_SETTLE_ROUNDS = 30;
/** setImmediate turns the scheduler waits for quiescence before it calls the world stuck. */
const MAX_DRAIN_TURNS = 500;

/** The lease a segment holds: who it is and which claim. */
export interface SegmentLeaseRef {
  readonly owner: string;
  readonly attempt: number;
}

/** One append to a run stream, with the command that made it and the lease that command was sent under (null for a service's command). */
export interface AppendRecord {
  readonly runId: string;
  /** Revisions written, inclusive. */
  readonly from: number;
  readonly to: number;
  readonly command: RunCommand['type'];
  readonly types: readonly string[];
  readonly lease: SegmentLeaseRef | null;
  /** The process slot whose command processor appended. */
  readonly slot: Slot;
}

/** The segment that executed something, and the lease it held. */
export interface ExecutionAuthor {
  readonly taskId: number;
  readonly lease: SegmentLeaseRef | null;
}

/** One real execution, of a tool (from the harness's ToolBehaviour) or of a model round (the provider), with who did it and when. */
export interface LedgerEntry {
  /** Global order of executions. */
  readonly order: number;
  readonly kind: 'tool' | 'model';
  /** The tool's name, or `model`. */
  readonly name: string;
  readonly runId: string;
  readonly stepId: string;
  readonly idempotencyKey: string | null;
  /** The attempt the tool was given (null for a model round). */
  readonly attempt: number | null;
  /** The simulated segment that executed it, with the lease it held. */
  readonly author: ExecutionAuthor | null;
  /** How many events the run's stream held when it executed: what it had been decided on. */
  readonly runRevision: number;
  /** How many events the run's audit stream held when it executed: the statements stored before it. */
  readonly auditRevision: number;
  /** The simulated clock. */
  readonly at: number;
}

/** A run's stored history. */
export interface RunHistory {
  readonly runId: string;
  readonly agent: string;
  readonly events: readonly RunEvent[];
  readonly audit: readonly AuditEvent[];
}

/** Everything the invariant checker reads. */
export interface History {
  readonly runs: readonly RunHistory[];
  readonly ledger: readonly LedgerEntry[];
  /** Appends to run streams, with their commands' leases. */
  readonly appends: readonly AppendRecord[];
  /** Errors nobody expected (a segment or a pass that threw, a scheduler that never got quiet). */
  readonly unexpected: readonly string[];
  readonly agents: readonly TestAgent[];
}

/** Options of a world. */
export interface SimOptions {
  /** Print the runtime's logs (silent by default). */
  readonly verboseLogs?: boolean;
  /**
   * A deliberate bug, for the checker's own tests: `nonIdempotentWriteRunsTwice`
   * makes the NON_IDEMPOTENT_WRITE tool execute twice per call;
   * `auditSilentlyLost` makes the audit store acknowledge the audit events of
   * writes without storing them; `statementBeforeDecision` states a person's
   * approval decision in the audit chain from the request, before the run
   * decides it (what the runtime did before decisions took effect first).
   */
  readonly mutation?: 'nonIdempotentWriteRunsTwice' | 'auditSilentlyLost' | 'statementBeforeDecision';
  /**
   * Where the audit streams live: in a store of their own (the default: a
   * step's records one after the other, the audit able to fail alone), or in
   * the run store (a step's records in one commit, as the service keeps
   * them by default; `breakAudit` then refuses every write holding an audit
   * event).
   */
  readonly audit?: AuditPlacement;
}


/** Counters of one schedule (summed over schedules by the spec). */
export type SimCounters = Record<string, number>;

/** The simulation's own pause point, in the model provider's call (the runtime marks none there). */
export const DURING_MODEL_CALL = 'duringModelCall';

interface Pause {
  readonly point: CrashPoint | typeof DURING_MODEL_CALL;
  readonly context: CrashPointContext;
  readonly resolve: () => void;
}

/** Something the scheduler started: a segment (worker or interactive caller) or a service call. */
interface Task {
  readonly id: number;
  readonly kind: 'segment' | 'service';
  readonly label: string;
  readonly slot: Slot;
  readonly generation: number;
  /** A segment's lease, once it claimed. */
  lease: SegmentLeaseRef | null;
  pauseAfter: PauseAfter;
  pause: Pause | null;
  state: 'running' | 'paused' | 'done' | 'dead';
  result?: unknown;
  error?: unknown;
}

/** A simulated process: the real execution engine in a Nest testing module, over the shared stores. */
interface SimProcess {
  readonly slot: Slot;
  readonly generation: number;
  readonly module: TestingModule;
  readonly runs: RunService;
  readonly workers: WorkerPool;
  readonly reaper: Reaper;
  readonly saga: AuditGapSaga;
  readonly processor: RunCommandProcessor;
  readonly metrics: RuntimeMetrics;
}

/**
 * The test tools and their registry, built once for every world of the
 * process (compiling the tools' argument schemas costs more than a world):
 * one world runs at a time, and each takes them over when it starts.
 */
let shared: { behaviour: ToolBehaviour; registry: ToolRegistry; onExecution: (e: Execution) => void; appendRunsTwice: boolean } | null = null;
function sharedTools(): NonNullable<typeof shared> {
  if (shared !== null) return shared;
  const tools = { behaviour: new ToolBehaviour(), registry: new ToolRegistry(), onExecution: (_e: Execution): void => undefined, appendRunsTwice: false };
  for (const tool of testTools(tools.behaviour)) tools.registry.register(tool as AgentTool & object);
  const run = tools.behaviour.run.bind(tools.behaviour);
  tools.behaviour.run = async (tool, context, result) => {
    if (tools.appendRunsTwice && tool === 'test.append') await run(tool, context, result);
    const returned = await run(tool, context, result);
    // The call has done its work and not returned yet (as the crash tests' tools mark it).
    await crashPoint(CrashPoint.DURING_TOOL_CALL, { runId: context.runId, stepId: context.stepId, effect: TOOL_EFFECTS[tool] });
    return returned;
  };
  const executions = tools.behaviour.executions;
  const push = executions.push.bind(executions);
  executions.push = (...items: Execution[]): number => {
    for (const e of items) tools.onExecution(e);
    return push(...items);
  };
  shared = tools;
  return tools;
}

const silentLogger: LoggerService = { log: () => undefined, error: () => undefined, warn: () => undefined, debug: () => undefined, verbose: () => undefined };

/** Thrown when the scheduler cannot reach quiescence: something waits on a timer or hangs. */
export class SimulationStuckError extends Error {}

/**
 * The simulated world of one schedule: a manual clock, two in-memory stores
 * (runs and audits, so that the audit store can fail alone), two process
 * slots running the real ExecutionModule, the test tools and scripted agents,
 * and the deterministic scheduler.
 *
 * The scheduler: every action starts tasks (a worker's segment, a reaper
 * pass, a cancel, ...), then drains: it yields `setImmediate` turns until no
 * task is running and no store changed during two turns. The runtime here
 * never needs a timer: the stores are in memory (their awaits are
 * microtasks), workers run with concurrency 0 (no poll loop), the reaper and
 * the saga have no interval, so everything started runs to its end or to a
 * crash point where the scheduler holds it. A segment's crash points are
 * where it pauses (`pauseAfter`); the schedule decides when it goes on, or
 * that its process dies and it never does. At most one segment runs at a
 * time (service calls may run beside it, interleaved at microtask
 * granularity by `together`), so what the runtime reports (a crash point, a
 * tool or model execution, a claim) belongs to that segment. Nothing depends
 * on wall time or randomness, so a schedule replays exactly.
 */
export class SimWorld {
  readonly clock = new ManualClock();
  readonly behaviour: ToolBehaviour;
  readonly runStore: SimStore;
  readonly auditStore: SimStore;
  readonly ledger: LedgerEntry[] = [];
  readonly runIds: string[] = [];
  readonly trace: string[] = [];
  readonly unexpected: string[] = [];
  readonly counters: SimCounters = {};
  readonly appends: AppendRecord[] = [];
  private readonly tasks: Task[] = [];
  /** The segment tasks running now: at most one (see launch). */
  private readonly runningSegments = new Set<Task>();
  private readonly processes: SimProcess[] = [];
  private readonly runAgents = new Map<string, string>();
  private readonly registry: ToolRegistry;
  private readonly agents = SIM_AGENTS;
  private autoContinue = false;
  private modelOutage = false;
  private removeHandler: (() => void) | null = null;
  private readonly mutation: SimOptions['mutation'] | null;
  private closed = false;

  private constructor(options: SimOptions) {
    this.runStore = new SimStore(() => this.clock.now());
    this.auditStore = options.audit === 'run store' ? this.runStore : new SimStore(() => this.clock.now());
    if (options.audit === 'run store') this.count('world:auditInRunStore');
    const tools = sharedTools();
    this.behaviour = tools.behaviour;
    this.registry = tools.registry;
    this.behaviour.executions.length = 0;
    this.behaviour.failWith = null;
    tools.onExecution = (e) => this.recordExecution('tool', e.tool, e.runId, e.stepId, e.idempotencyKey, e.attempt);
    this.mutation = options.mutation ?? null;
    tools.appendRunsTwice = options.mutation === 'nonIdempotentWriteRunsTwice';
    if (options.mutation === 'auditSilentlyLost') {
      this.auditStore.lose = (events) => events.some((e) => e.type === 'AuditRecorded' && ['IDEMPOTENT_WRITE', 'NON_IDEMPOTENT_WRITE'].includes(String((e.data as { effect?: unknown }).effect)));
    }
  }

  /** A world with two running processes. */
  static async start(options: SimOptions = {}): Promise<SimWorld> {
    const world = new SimWorld(options);
    world.removeHandler = installCrashPointHandler((point, context) => world.onCrashPoint(point, context));
    try {
      world.processes.push(await world.startProcess(0, 0, options.verboseLogs === true), await world.startProcess(1, 0, options.verboseLogs === true));
      await world.drain();
    } catch (error) {
      await world.close();
      throw error;
    }
    return world;
  }

  // ---------------------------------------------------------------- actions

  /** Enqueues a run before the actions start. */
  async enqueue(agent: string): Promise<void> {
    await this.play({ kind: 'enqueue', agent, slot: 0 });
  }

  /** Plays one action and drains what it started. */
  async play(action: Action): Promise<void> {
    if (action.kind === 'crash' || action.kind === 'together' || action.kind === 'race') this.count(`action:${action.kind}`);
    this.trace.push(`t=${this.clock.now()} ${describeAction(action)}`);
    if (action.kind === 'crash') {
      await this.crash(action.slot);
      return;
    }
    if (action.kind === 'together') {
      this.begin(action.first);
      for (let i = 0; i < action.offset; i++) await Promise.resolve();
      this.begin(action.second);
    } else if (action.kind === 'race') {
      for (const [i, member] of action.members.entries()) {
        for (let turn = 0; turn < (i === 0 ? 0 : (action.offsets[i - 1] ?? 0)); turn++) await Promise.resolve();
        this.begin(member);
      }
    } else {
      this.begin(action);
    }
    await this.drain();
  }

  /** Starts an action's task (or changes the world at once), without waiting. */
  private begin(action: BasicAction): void {
    this.count(`action:${action.kind}`);
    const p = (slot: Slot) => this.processes[slot] as SimProcess;
    switch (action.kind) {
      case 'enqueue': {
        const runId = this.newRun(action.agent);
        this.launch('service', action.slot, `enqueue ${runId}`, null, () => p(action.slot).runs.enqueue({ requestedBy: { kind: 'bus', id: 'test' }, agent: action.agent, input: 'go', runId }));
        return;
      }
      case 'interactive': {
        const runId = this.newRun(action.agent);
        this.launch('segment', action.slot, `interactive ${runId}`, action.pauseAfter, () => p(action.slot).runs.runInteractive({ requestedBy: { kind: 'bus', id: 'test' }, agent: action.agent, input: 'go', runId }));
        return;
      }
      case 'step':
        this.launch('segment', action.slot, 'worker step', action.pauseAfter, () => p(action.slot).workers.runOnce());
        return;
      case 'resume': {
        const paused = this.tasks.filter((t) => t.state === 'paused');
        const task = paused[action.pick % Math.max(1, paused.length)];
        if (task === undefined) {
          this.trace.push('  (nothing paused)');
          return;
        }
        this.resumeTask(task, action.pauseAfter);
        return;
      }
      case 'advance':
        this.clock.advance(action.ms);
        if (action.ms > LEASE_MS) this.count('fault:clockPastLease');
        return;
      case 'reap':
        this.launch('service', action.slot, 'reaper pass', null, () => p(action.slot).reaper.reapOnce());
        return;
      case 'saga':
        this.launch('service', action.slot, 'saga check', null, () => p(action.slot).saga.checkDeadlines());
        return;
      case 'cancel':
        this.launch('service', action.slot, 'cancel', null, async () => {
          const runId = await this.pickRun(action.pick, (state) => state.settlement === null, action.slot);
          if (runId === undefined) return null;
          this.trace.push(`  cancel ${runId}`);
          return p(action.slot).runs.cancel(runId, busPrincipal('sim-operator'), 'simulated cancel');
        });
        return;
      case 'decide':
        this.launch('service', action.slot, `decide ${action.approve ? 'approve' : 'deny'}`, null, async () => {
          const runId = await this.pickRun(action.pick, (state) => state.status === 'WAITING_FOR_APPROVAL', action.slot);
          if (runId === undefined) return null;
          this.trace.push(`  ${action.approve ? 'approve' : 'deny'} ${runId}`);
          this.count(action.approve ? 'fault:approve' : 'fault:deny');
          if (this.mutation === 'statementBeforeDecision') await this.stateFromRequest(action.slot, runId, action.approve);
          return p(action.slot).runs.decideApproval(runId, { decision: action.approve ? 'approve' : 'deny', decidedBy: busPrincipal('sim-person') });
        });
        return;
      case 'input':
        this.launch('service', action.slot, 'input', null, async () => {
          const runId = await this.pickRun(action.pick, (state) => state.status === 'WAITING_FOR_INPUT', action.slot);
          if (runId === undefined) return null;
          this.trace.push(`  input for ${runId}`);
          this.count('fault:input');
          return p(action.slot).runs.submitInput(runId, { input: 'the answer', submittedBy: busPrincipal('sim-person') });
        });
        return;
      case 'breakAudit':
        if (!this.auditBroken) this.count('fault:auditBroken');
        this.setAuditBroken(true);
        return;
      case 'healAudit':
        this.setAuditBroken(false);
        return;
      case 'modelOutage':
        if (action.on && !this.modelOutage) this.count('fault:modelOutage');
        this.modelOutage = action.on;
        return;
      case 'toolFault':
        if (action.on && this.behaviour.failWith === null) this.count('fault:toolFault');
        this.behaviour.failWith = action.on ? new Error('simulated tool fault') : null;
        return;
    }
  }

  /** A process dies: its paused segments never go on (their leases expire by the clock); a fresh process takes the slot. */
  private async crash(slot: Slot): Promise<void> {
    const dead = this.processes[slot] as SimProcess;
    this.count('fault:crash');
    for (const task of this.tasks) {
      if (task.slot !== slot || task.generation !== dead.generation) continue;
      if (task.state === 'paused') {
        task.state = 'dead';
        task.pause = null;
        this.count('fault:segmentKilled');
      } else if (task.state === 'running') {
        // Unreachable after a drain: every task is paused or done.
        task.state = 'dead';
      }
    }
    this.addMetrics(dead);
    await dead.module.close();
    this.processes[slot] = await this.startProcess(slot, dead.generation + 1, false);
    await this.drain();
  }

  // ---------------------------------------------------------------- settle

  /**
   * Brings every run to an end: heals the faults, deals with the paused
   * segments as the plan says, then rounds of (decide pending approvals,
   * answer pending inputs, move the clock past every lease and backoff, reap,
   * run workers until none finds a due run, saga checks), until every run is
   * settled; then a last saga pass past the grace period.
   */
  async settle(plan: SettlePlan): Promise<void> {
    this.trace.push(`t=${this.clock.now()} settle(${JSON.stringify(plan)})`);
    this.setAuditBroken(false);
    this.modelOutage = false;
    this.behaviour.failWith = null;
    if (plan.paused === 'crash') {
      for (const slot of [0, 1] as const) {
        const current = this.processes[slot] as SimProcess;
        if (this.tasks.some((t) => t.state === 'paused' && t.slot === slot && t.generation === current.generation)) await this.crash(slot);
      }
    } else if (plan.paused === 'expireThenResume' && this.tasks.some((t) => t.state === 'paused')) {
      this.clock.advance(SETTLE_ADVANCE_MS);
      this.launch('service', 0, 'reaper pass', null, () => (this.processes[0] as SimProcess).reaper.reapOnce());
      await this.drain();
    }
    this.autoContinue = true;
    for (const task of this.tasks.filter((t) => t.state === 'paused')) {
      this.resumeTask(task, null);
      await this.drain();
    }

    let decision = 0;
    for (let round = 0; round < MAX_SETTLE_ROUNDS; round++) {
      const open = await this.openRuns();
      if (open.length === 0) break;
      const slot = (round % 2) as Slot;
      const p = this.processes[slot] as SimProcess;
      for (const { runId, state } of open) {
        if (state.status === 'WAITING_FOR_APPROVAL') {
          const approve = plan.approvals[decision++ % plan.approvals.length] ?? true;
          this.count(approve ? 'fault:approve' : 'fault:deny');
          this.launch('service', slot, `settle: decide ${runId}`, null, () => p.runs.decideApproval(runId, { decision: approve ? 'approve' : 'deny', decidedBy: busPrincipal('sim-settle') }));
        } else if (state.status === 'WAITING_FOR_INPUT') {
          this.count('fault:input');
          this.launch('service', slot, `settle: input ${runId}`, null, () => p.runs.submitInput(runId, { input: 'the answer', submittedBy: busPrincipal('sim-settle') }));
        }
      }
      await this.drain();
      this.clock.advance(SETTLE_ADVANCE_MS);
      this.launch('service', slot, 'settle: reaper pass', null, () => p.reaper.reapOnce());
      await this.drain();
      for (let i = 0; i < 4 * this.runIds.length + 4; i++) {
        const step = this.launch('segment', slot, 'settle: worker step', null, () => p.workers.runOnce());
        await this.drain();
        if (step.result === null || step.error !== undefined) break;
      }
      for (const s of [0, 1] as const) this.launch('service', s, 'settle: saga check', null, () => (this.processes[s] as SimProcess).saga.checkDeadlines());
      await this.drain();
    }
    this.clock.advance(GRACE_MS + 1);
    for (const s of [0, 1] as const) this.launch('service', s, 'settle: last saga check', null, () => (this.processes[s] as SimProcess).saga.checkDeadlines());
    await this.drain();
  }

  // ---------------------------------------------------------------- history

  /** The stores' contents, read back, and the ledgers. */
  async history(): Promise<History> {
    const runs: RunHistory[] = [];
    for (const runId of this.runIds) {
      const read = await this.runStore.inner.readStream(runStreamName(runId));
      const audit = await this.auditStore.inner.readStream(auditStreamName(runId));
      runs.push({
        runId,
        agent: this.runAgents.get(runId) ?? '',
        events: toDomainEvents<RunEvent>(read.events, isRunEventType),
        audit: toDomainEvents<AuditEvent>(audit.events, isAuditEventType),
      });
    }
    return { runs, ledger: this.ledger, appends: this.appends, unexpected: this.unexpected, agents: this.agents };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.removeHandler?.();
    for (const task of this.tasks) if (task.state === 'paused') task.state = 'dead';
    for (const process of this.processes) {
      this.addMetrics(process);
      await process.module.close();
    }
    this.count('auditAppendsRefused', this.auditStore.refused);
    await this.runStore.close();
    if (this.auditStore !== this.runStore) await this.auditStore.close();
  }

  // ---------------------------------------------------------------- the scheduler

  /** Yields until every task is paused or done and nothing changed for two turns. */
  async drain(): Promise<void> {
    let quiet = 0;
    for (let turn = 0; turn < MAX_DRAIN_TURNS; turn++) {
      const before = this.progress();
      await new Promise<void>((resolve) => setImmediate(resolve));
      const running = this.tasks.some((t) => t.state === 'running');
      if (!running && before === this.progress()) {
        if (++quiet >= 2) return;
      } else {
        quiet = 0;
      }
    }
    const stuck = this.tasks.filter((t) => t.state === 'running').map((t) => `#${t.id} ${t.label}`);
    const message = `the scheduler found no quiescence after ${MAX_DRAIN_TURNS} turns; still running: ${stuck.join(', ') || 'none'}`;
    this.unexpected.push(message);
    throw new SimulationStuckError(message);
  }

  private progress(): string {
    return `${this.runStore.appends}/${this.auditStore.appends}/${this.tasks.length}/${this.tasks.filter((t) => t.state === 'running').length}`;
  }

  /**
   * Starts a task. At most one segment runs at a time (an action starts at
   * most one, and drains it to its end or its next pause), so that the crash
   * points, tool and model executions and claims the runtime reports belong
   * to that one segment: no AsyncLocalStorage is needed to tell them apart
   * (it triples the cost of a schedule on Node 20).
   */
  private launch(kind: Task['kind'], slot: Slot, label: string, pauseAfter: PauseAfter, body: () => Promise<unknown>): Task {
    const process = this.processes[slot] as SimProcess;
    const task: Task = { id: this.tasks.length + 1, kind, label, slot, generation: process.generation, lease: null, pauseAfter, pause: null, state: 'running' };
    this.tasks.push(task);
    if (kind === 'segment') this.markRunning(task);
    void (async () => {
      try {
        task.result = await body();
        this.describeResult(task);
      } catch (error) {
        task.error = error;
        this.describeError(task, error);
      } finally {
        if (task.state === 'running') task.state = 'done';
        this.runningSegments.delete(task);
      }
    })();
    return task;
  }

  private markRunning(task: Task): void {
    this.runningSegments.add(task);
    if (this.runningSegments.size > 1) this.unexpected.push(`scheduler: ${this.runningSegments.size} segments running at once`);
  }

  /** The one segment running now (undefined, and an unexpected entry, when there is not exactly one). */
  private runningSegment(what: string): Task | undefined {
    if (this.runningSegments.size === 1) return [...this.runningSegments][0];
    this.unexpected.push(`scheduler: ${what} with ${this.runningSegments.size} segments running`);
    return undefined;
  }

  private resumeTask(task: Task, pauseAfter: PauseAfter): void {
    const pause = task.pause;
    if (pause === null) return;
    this.trace.push(`  resume #${task.id} (${task.label}) at ${pause.point} ${pause.context.stepId ?? pause.context.runId ?? ''}`);
    task.pause = null;
    task.pauseAfter = pauseAfter;
    task.state = 'running';
    this.markRunning(task);
    pause.resolve();
  }

  /** The crash point handler: a segment passes its crash points until the one it pauses at. */
  private onCrashPoint(point: CrashPoint | typeof DURING_MODEL_CALL, context: CrashPointContext): void | Promise<void> {
    this.count('crashPointsReached');
    if (this.autoContinue) return;
    const task = this.runningSegment(`crash point ${point} of ${context.runId ?? '?'}`);
    if (task === undefined || task.pauseAfter === null) return;
    if (task.pauseAfter > 0) {
      task.pauseAfter--;
      return;
    }
    this.count('fault:pause');
    this.count(`pauseAt:${point}`);
    this.trace.push(`  #${task.id} (${task.label}) pauses at ${point} ${context.stepId ?? context.runId ?? ''}`);
    return new Promise<void>((resolve) => {
      task.pause = { point, context, resolve };
      task.state = 'paused';
      this.runningSegments.delete(task);
    });
  }

  private describeResult(task: Task): void {
    const result = task.result;
    if (task.kind === 'segment') {
      this.trace.push(`  #${task.id} (${task.label}) ended: ${result === null ? 'no due run' : typeof result === 'string' ? `ran ${result}` : 'settled or waiting'}`);
    }
  }

  private describeError(task: Task, error: unknown): void {
    const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    if ((task.kind === 'service' || task.label.startsWith('interactive')) && error instanceof AgentLedgerError) {
      // A refusal the API gives (not waiting, already settled, decision not stored, an interactive run
      // cancelled before its caller could claim it, ...): part of the game. A worker step never throws one.
      this.count(`refused:${error.code}`);
      this.trace.push(`  #${task.id} (${task.label}) refused: ${error.code}`);
      return;
    }
    this.unexpected.push(`task #${task.id} (${task.label}) threw ${message}`);
    this.trace.push(`  #${task.id} (${task.label}) THREW ${message}`);
  }

  // ---------------------------------------------------------------- helpers

  /** The `statementBeforeDecision` mutation: a statement from the request and a snapshot, stored before the run decides. */
  private async stateFromRequest(slot: Slot, runId: string, approve: boolean): Promise<void> {
    const process = this.processes[slot] as SimProcess;
    const pending = (await process.processor.load(runId)).state.pendingApproval;
    if (pending === null) return;
    const statement: DecisionStatement = {
      kind: 'approval',
      data: {
        runId,
        round: pending.round,
        decision: approve ? 'approved' : 'denied',
        calls: pending.calls.map((c) => ({ stepId: c.stepId, toolName: c.toolName, effect: c.effect, argumentsHash: canonicalSha256(c.arguments) })),
        decidedBy: busPrincipal('sim-person'),
        reason: null,
      },
    };
    await process.module.get(AuditRecorder).recordStatement(statement, this.clock.now());
  }

  private newRun(agent: string): string {
    const runId = `run-${this.runIds.length + 1}`;
    this.runIds.push(runId);
    this.runAgents.set(runId, agent);
    this.count('runs');
    return runId;
  }

  /** A run that matches (chosen by `pick`), or any run when none does (the API then refuses). */
  private async pickRun(pick: number, matches: (state: RunState) => boolean, slot: Slot): Promise<string | undefined> {
    const processor = (this.processes[slot] as SimProcess).processor;
    const matching: string[] = [];
    for (const runId of this.runIds) if (matches((await processor.load(runId)).state)) matching.push(runId);
    const from = matching.length > 0 ? matching : this.runIds;
    return from[pick % Math.max(1, from.length)];
  }

  private async openRuns(): Promise<{ runId: string; state: RunState }[]> {
    const processor = (this.processes[0] as SimProcess).processor;
    const open: { runId: string; state: RunState }[] = [];
    for (const runId of this.runIds) {
      const state = (await processor.load(runId)).state;
      if (state.settlement === null) open.push({ runId, state });
    }
    return open;
  }

  private recordExecution(kind: LedgerEntry['kind'], name: string, runId: string, stepId: string, idempotencyKey: string | null, attempt: number | null): void {
    const task = this.runningSegment(`execution of ${stepId}`);
    if (task !== undefined && attempt !== null && task.lease?.attempt !== attempt) {
      this.unexpected.push(`scheduler: ${stepId} executed with attempt ${attempt} by the segment of lease ${JSON.stringify(task.lease)}`);
    }
    this.ledger.push({
      order: this.ledger.length,
      kind,
      name,
      runId,
      stepId,
      idempotencyKey,
      attempt,
      author: task === undefined ? null : { taskId: task.id, lease: task.lease },
      runRevision: this.runStore.lengthOf(runStreamName(runId)),
      auditRevision: this.auditStore.lengthOf(auditStreamName(runId)),
      at: this.clock.now(),
    });
  }

  /** Called by every process's command processor after an append: the record, and a segment's lease from its claim. */
  private recordAppend(slot: Slot, command: RunCommand, outcome: RunCommandOutcome): void {
    const to = Number(outcome.revision);
    const data = command.data as { owner?: unknown; attempt?: unknown };
    const lease = typeof data.owner === 'string' && typeof data.attempt === 'number' ? { owner: data.owner, attempt: data.attempt } : null;
    this.appends.push({ runId: command.data.runId, from: to - outcome.appended.length + 1, to, command: command.type, types: outcome.appended.map((e) => e.type), lease, slot });
    const claimed = outcome.appended.find((e) => e.type === 'RunClaimed');
    if (claimed?.type === 'RunClaimed') {
      const task = this.runningSegment(`claim of ${command.data.runId}`);
      if (task !== undefined) task.lease = { owner: claimed.data.owner, attempt: claimed.data.attempt };
    }
  }

  /** Whether audit appends are refused now. */
  private get auditBroken(): boolean {
    return this.auditStore === this.runStore ? this.runStore.auditBroken : this.auditStore.broken;
  }

  /** Audit appends refused (the audit store alone; or, in the run store, every write holding an audit event) or accepted again. */
  private setAuditBroken(broken: boolean): void {
    if (this.auditStore === this.runStore) this.runStore.auditBroken = broken;
    else this.auditStore.broken = broken;
  }

  private count(counter: string, by = 1): void {
    this.counters[counter] = (this.counters[counter] ?? 0) + by;
  }

  private addMetrics(process: SimProcess): void {
    for (const [name, value] of Object.entries(process.metrics.snapshot()) as [RuntimeCounter, number][]) this.count(`metric:${name}`, value);
    for (const series of process.metrics.labelled('decisionStatements')) this.count(`statements:${series.labels.outcome ?? 'unknown'}`, series.value);
  }

  private async startProcess(slot: Slot, generation: number, verboseLogs: boolean): Promise<SimProcess> {
    const catalog = agentCatalogOf(
      this.agents.map((agent) => {
        const tools = toolsOf(agent);
        const scripted = new ScriptedModelProvider(agent.script);
        const provider: ModelProvider = {
          respond: async (request) => {
            this.recordExecution('model', 'model', request.runId, `${request.runId}/r${request.round}/llm`, null, null);
            // A slow model: the segment may pause in the call (its lease may expire meanwhile), like a tool during its call.
            await this.onCrashPoint(DURING_MODEL_CALL, { runId: request.runId, stepId: `${request.runId}/r${request.round}/llm` });
            if (this.modelOutage || MODEL_DOWN_AGENTS.has(agent.name)) throw Object.assign(new Error('simulated model outage (HTTP 503)'), { status: 503 });
            return scripted.respond(request);
          },
        };
        return {
          definition: {
            name: agent.name,
            instructions: `You are ${agent.name}.`,
            provider: { type: 'scripted' as const, script: agent.script },
            tools,
            maxIterations: agent.maxIterations ?? 20,
            approvals: { preApproved: agent.approvals?.preApproved ?? tools, onDenial: agent.approvals?.onDenial ?? 'endRun' },
          },
          provider,
        };
      }),
    );
    const builder = Test.createTestingModule({
      imports: [
        ExecutionModule.forRoot({
          runStore: this.runStore,
          auditStore: this.auditStore,
          agents: catalog,
          tools: { provide: TOOL_CATALOG, useValue: this.registry },
          clock: this.clock,
          workers: { concurrency: 0, pollIntervalMs: 10 },
          reaper: { intervalMs: 0 },
          auditGapSaga: { checkIntervalMs: 0, gracePeriodMs: GRACE_MS, databasePath: ':memory:' },
        }),
      ],
    });
    if (!verboseLogs) builder.setLogger(silentLogger);
    const module = await builder.compile();
    // Every append to a run stream goes through this process's command processor: record it with its command's lease.
    const processor = module.get(RunCommandProcessor);
    const process = processor.process.bind(processor);
    processor.process = async (command, known, causation) => {
      const outcome = await process(command, known, causation);
      if (outcome.appended.length > 0) this.recordAppend(slot, command, outcome);
      return outcome;
    };
    // ... and the run's commands of a step's one-commit append (the audit in the run store).
    const steps = module.get(StepAppender);
    const appendStep = steps.appendStep.bind(steps);
    steps.appendStep = async (run, entry, now) => {
      const stored = await appendStep(run, entry, now);
      if (stored !== null) for (const decided of run) this.recordAppend(slot, decided.command, { ...decided, appended: decided.events });
      return stored;
    };
    await module.init();
    return {
      slot,
      generation,
      module,
      runs: module.get(RunService),
      workers: module.get(WorkerPool),
      reaper: module.get(Reaper),
      saga: module.get(AuditGapSaga),
      processor: module.get(RunCommandProcessor),
      metrics: module.get(RuntimeMetrics),
    };
  }
}

/** Whether a run's events hold a terminal event. */
export function isSettled(events: readonly RunEvent[]): boolean {
  return events.some(isTerminalRunEvent);
}
