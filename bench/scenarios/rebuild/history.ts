/**
 * A realistic event history for the rebuild benchmark: many runs, each with
 * the event sequence a real run has, decided by the domain's run and audit
 * deciders and encoded by the runtime's codec (`toEventData`) on the streams
 * the runtime writes (`run-<runId>`, `audit-<runId>`), appended to a
 * `SqliteEventStore` file.
 *
 * Runs are simulated as a few workers would execute them: about
 * {@link CONCURRENT_RUNS} runs in flight, each decision appended on its own
 * (one append per command, as a segment does), in simulated-time order, so
 * the events of concurrent runs interleave in `$all` as they do in a service.
 * The appends are queued without waiting for one another, so the store's
 * group commit writes thousands per transaction: generating is fast, and is
 * not measured.
 */
import { randomUUID } from 'node:crypto';
import type { AuditCommand, AuditEvent, AuditState, DomainEvent, JsonObject, RunCommand, RunDecider, RunEvent, RunState, StepTool } from '@agent-ledger/domain';
import { apiKeyPrincipal, auditDecider, busPrincipal, createRunDecider, stepAuditEntry, stepIdFor, ToolEffect } from '@agent-ledger/domain';
import type { CurrentRevision } from '@agent-ledger/event-store';
import { ExpectedRevision, SqliteEventStore } from '@agent-ledger/event-store';
import { toEventData } from '@agent-ledger/runtime';
import { auditStreamName, runStreamName } from '@agent-ledger/runtime';

/** Runs in flight at once in the simulation (their events interleave in `$all`). */
export const CONCURRENT_RUNS = 16;

/** Appends queued before waiting for them to commit (bounds the generator's memory). */
const APPENDS_PER_WAVE = 4_000;

/** What was generated. */
export interface GeneratedHistory {
  readonly path: string;
  readonly runs: number;
  readonly events: number;
  readonly runEvents: number;
  readonly auditEvents: number;
  readonly appends: number;
  /** Events by type, for the notes. */
  readonly eventsByType: Readonly<Record<string, number>>;
  /** How the runs ended (`COMPLETED`, `FAILED:AUDIT_MISSING`...). */
  readonly runsByOutcome: Readonly<Record<string, number>>;
  readonly seconds: number;
}

/** The tools of the simulated agents, one or more of each effect. */
const TOOLS: readonly StepTool[] = [
  { name: 'files.read', effect: ToolEffect.READ_ONLY },
  { name: 'http.get', effect: ToolEffect.READ_ONLY },
  { name: 'kv.put', effect: ToolEffect.IDEMPOTENT_WRITE, operationDeadlineSeconds: 30 },
  { name: 'files.append', effect: ToolEffect.NON_IDEMPOTENT_WRITE, operationDeadlineSeconds: 30 },
];
const AGENTS = ['support-triage', 'file-clerk', 'research-assistant'] as const;
const TEXT =
  'The customer reports that the export job stopped after the upgrade; the logs show a timeout while reading the archive. ' +
  'We checked the configuration, the quota and the last three deployments, and found that the retry budget was exhausted by a slow disk. ' +
  'Next steps: raise the budget, move the archive, and tell the customer what changed and when the export will run again. ';

/** A small deterministic PRNG (mulberry32): the same history for the same seed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const text = (random: () => number, min: number, max: number) => {
  const length = min + Math.floor(random() * (max - min));
  const start = Math.floor(random() * (TEXT.length - length));
  return TEXT.slice(start, start + length);
};

/** The arguments a model asks a tool call with, sized like real ones. */
function toolArguments(tool: StepTool, i: number, random: () => number): JsonObject {
  switch (tool.name) {
    case 'files.read':
      return { path: `notes/2026-11-${String(1 + (i % 28)).padStart(2, '0')}/ticket-${i}.md` };
    case 'http.get':
      return { url: `https://api.example.com/v2/tickets/${i}/history?limit=20` };
    case 'kv.put':
      return { key: `ticket:${i}:triage`, value: { status: 'triaged', priority: `p${1 + (i % 4)}`, note: text(random, 40, 120) } };
    default:
      return { path: 'clerk.log', content: `${text(random, 30, 90)}\n` };
  }
}

/** What a tool returns, sized like real results. */
function toolResult(tool: StepTool, i: number, random: () => number): JsonObject {
  switch (tool.name) {
    case 'files.read':
      return { content: text(random, 150, 350), bytes: 1024 + (i % 4096) };
    case 'http.get':
      return { status: 200, body: { id: i, state: 'open', summary: text(random, 80, 200) } };
    case 'kv.put':
      return { ok: true, version: 1 + (i % 9) };
    default:
      return { bytesWritten: 40 + (i % 60) };
  }
}

/** One append a decision makes: its events, on the run's or the audit stream, at the revision it was decided on. */
interface Op {
  readonly kind: 'run' | 'audit';
  readonly stream: string;
  readonly revision: CurrentRevision;
  readonly events: readonly DomainEvent[];
  readonly runId: string;
}

/**
 * One simulated run: its state folded as its events are decided, its own
 * simulated clock, and the appends its decisions make. Every command goes
 * through the run decider (the audit commands through the audit decider), so
 * the history holds nothing the rules forbid.
 */
class SimulatedRun {
  readonly runId = randomUUID();
  readonly runStream = runStreamName(this.runId);
  readonly auditStream = auditStreamName(this.runId);
  state: RunState;
  private auditState: AuditState = auditDecider.initialState();
  private runRevision: CurrentRevision = ExpectedRevision.NO_STREAM;
  private auditRevision: CurrentRevision = ExpectedRevision.NO_STREAM;
  /** The simulated time of its next decision (ms since the epoch). */
  now: number;
  outcome = 'RUNNING';

  constructor(
    private readonly decider: RunDecider,
    private readonly emit: (op: Op) => void,
    startAt: number,
  ) {
    this.state = decider.initialState();
    this.now = startAt;
  }

  /** Decides a run command at the run's simulated time and queues its append; throws unless accepted. */
  run(command: RunCommand): readonly RunEvent[] {
    const decision = this.decider.decide(command, this.state);
    if (decision.kind !== 'accepted') throw new Error(`history: ${command.type} of ${this.runId} was not accepted: ${JSON.stringify(decision)}`);
    if (decision.events.length === 0) return [];
    for (const event of decision.events) {
      this.state = this.decider.evolve(this.state, event);
      if (event.type === 'RunCompleted') this.outcome = 'COMPLETED';
      else if (event.type === 'RunFailed') this.outcome = `FAILED:${event.data.reason}`;
      else if (event.type === 'RunCancelled') this.outcome = 'CANCELLED';
    }
    this.emit({ kind: 'run', stream: this.runStream, revision: this.runRevision, events: decision.events, runId: this.runId });
    this.runRevision = next(this.runRevision, decision.events.length);
    return decision.events;
  }

  /** Decides an audit command and queues its append (nothing when the step is recorded already). */
  audit(command: AuditCommand): void {
    const decision = auditDecider.decide(command, this.auditState);
    if (decision.kind !== 'accepted') throw new Error(`${command.type} of ${this.runId} was not accepted: ${JSON.stringify(decision)}`);
    const events: readonly AuditEvent[] = decision.events;
    if (events.length === 0) return;
    for (const event of events) this.auditState = auditDecider.evolve(this.auditState, event);
    this.emit({ kind: 'audit', stream: this.auditStream, revision: this.auditRevision, events, runId: this.runId });
    this.auditRevision = next(this.auditRevision, events.length);
  }

  /** Records the audit of a completed step, as the segment does after each step. */
  auditStep(round: number, callIndex: number | undefined, attempt: number): void {
    const stepId = stepIdFor({ runId: this.runId, round, callIndex });
    const step = this.state.steps.get(stepId);
    if (step === undefined || step.status !== 'completed') throw new Error(`history: step ${stepId} is not completed`);
    this.audit({
      type: 'RecordAudit',
      data: stepAuditEntry(this.runId, step, attempt),
      metadata: { now: this.now },
    });
  }

  /** Moves the run's clock on. */
  wait(ms: number): void {
    this.now += Math.max(1, Math.round(ms));
  }
}

function next(revision: CurrentRevision, count: number): bigint {
  return (revision === ExpectedRevision.NO_STREAM ? -1n : revision) + BigInt(count);
}

/** A run's script: a generator that decides one step of the run per `next()`, so that runs interleave. */
type RunScript = Generator<void, void, undefined>;

/** What a run of the mix does; the shares add up to 1. */
const RUN_KINDS = [
  { kind: 'completed', share: 0.74 },
  { kind: 'approval', share: 0.08 },
  { kind: 'retried', share: 0.05 },
  { kind: 'reaped', share: 0.02 },
  { kind: 'providerFailed', share: 0.03 },
  { kind: 'auditFailedClosed', share: 0.02 },
  { kind: 'auditMissing', share: 0.01 },
  { kind: 'cancelledRunning', share: 0.03 },
  { kind: 'cancelledQueued', share: 0.02 },
] as const;
type RunKind = (typeof RUN_KINDS)[number]['kind'];

function pickKind(random: () => number): RunKind {
  let r = random();
  for (const { kind, share } of RUN_KINDS) {
    if (r < share) return kind;
    r -= share;
  }
  return 'completed';
}

/**
 * The script of one run of the given kind: a request, a worker's claim, one
 * to three rounds of tool calls (writes pre-approved, as the agent's
 * configuration does), a final answer, each step audited, with the
 * departures of the kind (a person's approval, a retried or reaped segment,
 * a failed provider, an audit that could not be stored or never arrived, a
 * cancel).
 */
function* runScript(sim: SimulatedRun, kind: RunKind, serial: number, random: () => number): RunScript {
  const runId = sim.runId;
  const agent = AGENTS[serial % AGENTS.length] as string;
  const interactive = kind === 'completed' && random() < 0.2;
  const tag = (n: number) => `${interactive ? 'interactive' : 'worker'}:bench-host-${serial % 3}:${4000 + (serial % 7)}:s${n.toString(36)}`;
  const meta = () => ({ now: sim.now });
  sim.run({ type: 'RequestRun', data: { runId, agent, input: { task: text(random, 40, 140), ticketId: `T-${serial}` }, mode: interactive ? 'interactive' : 'queued', requestedBy: { kind: 'apiKey', id: 'bench' }, maxIterations: 8 }, metadata: meta() });
  yield;
  sim.wait(interactive ? 2 : 50 + random() * 400);
  if (kind === 'cancelledQueued') {
    sim.run({ type: 'RequestCancel', data: { runId, requestedBy: busPrincipal('operator'), reason: 'not needed any more' }, metadata: meta() });
    return;
  }
  let owner = tag(serial);
  let attempt = 1;
  sim.run({ type: 'ClaimRun', data: { runId, owner }, metadata: meta() });
  yield;
  const lease = () => ({ owner, attempt });
  const toolRounds = 1 + (random() < 0.5 ? 0 : random() < 0.7 ? 1 : 2);
  let round = 0;
  for (; round < toolRounds; round++) {
    sim.wait(5);
    sim.run({ type: 'StartStep', data: { runId, ...lease(), round }, metadata: meta() });
    yield;
    sim.wait(600 + random() * 2400);
    if (kind === 'providerFailed' && round === toolRounds - 1) {
      sim.run({ type: 'FailRun', data: { runId, ...lease(), error: { failureClass: 'clientError', code: 'MODEL_BAD_REQUEST', message: 'The model server refused the request (400): context too long' }, reason: 'PROVIDER_FAILED' }, metadata: meta() });
      return;
    }
    const calls = Array.from({ length: 1 + Math.floor(random() * 3) }, () => TOOLS[Math.floor(random() * TOOLS.length)] as StepTool);
    if (kind === 'approval' && round === 0) calls.push(TOOLS[3] as StepTool);
    sim.run({
      type: 'RecordModelResponse',
      data: { runId, ...lease(), round, response: { type: 'toolCalls', calls: calls.map((tool, i) => ({ toolName: tool.name, arguments: toolArguments(tool, serial + i, random) })) } },
      metadata: meta(),
    });
    sim.auditStep(round, undefined, attempt);
    yield;
    if (kind === 'approval' && round === 0) {
      // The last call is a write the agent does not pre-approve: the run waits for a person, holding no lease.
      sim.run({ type: 'RequestApproval', data: { runId, ...lease(), round, calls: [{ callIndex: calls.length - 1, effect: ToolEffect.NON_IDEMPOTENT_WRITE, requirement: 'write' }], onDenial: 'endRun' }, metadata: meta() });
      yield;
      sim.wait(60_000 + random() * 600_000);
      const deny = random() < 0.2;
      const pending = sim.state.pendingApproval;
      if (pending === null) throw new Error(`history: ${runId} does not wait for an approval`);
      sim.audit({
        type: 'RecordApprovalDecision',
        data: {
          runId,
          round,
          decision: deny ? 'denied' : 'approved',
          calls: pending.calls.map((c) => ({ stepId: c.stepId, toolName: c.toolName, effect: c.effect, argumentsHash: 'c0ffee'.padEnd(64, '0') })),
          decidedBy: apiKeyPrincipal('ops-team'),
          reason: deny ? 'not during the freeze' : null,
        },
        metadata: meta(),
      });
      sim.run({ type: 'DecideApproval', data: { runId, decision: deny ? 'deny' : 'approve', decidedBy: apiKeyPrincipal('ops-team'), reason: deny ? 'not during the freeze' : undefined, round }, metadata: meta() });
      yield;
      if (deny) return;
      sim.wait(100 + random() * 400);
      owner = tag(serial + 1_000_000);
      sim.run({ type: 'ClaimRun', data: { runId, owner }, metadata: meta() });
      attempt = sim.state.attempt;
      yield;
    }
    for (const [callIndex, tool] of calls.entries()) {
      const stepId = stepIdFor({ runId, round, callIndex });
      if (kind === 'cancelledRunning' && round === 0 && callIndex === calls.length - 1) {
        sim.run({ type: 'RequestCancel', data: { runId, requestedBy: apiKeyPrincipal('support'), reason: 'the customer withdrew the ticket' }, metadata: meta() });
        yield;
        sim.wait(3);
        // The segment's next boundary finds the cancel: the run ends.
        sim.run({ type: 'StartStep', data: { runId, ...lease(), round, callIndex, tool }, metadata: meta() });
        return;
      }
      if (tool.effect !== ToolEffect.READ_ONLY && !sim.state.approvals.has(stepId)) {
        sim.run({ type: 'RecordPreApproval', data: { runId, ...lease(), round, callIndex, toolName: tool.name, effect: tool.effect, agent }, metadata: meta() });
      }
      sim.wait(2);
      sim.run({ type: 'StartStep', data: { runId, ...lease(), round, callIndex, tool }, metadata: meta() });
      yield;
      sim.wait(5 + random() * (tool.effect === ToolEffect.READ_ONLY ? 300 : 120));
      if ((kind === 'retried' || kind === 'reaped') && round === 0 && tool.effect === ToolEffect.IDEMPOTENT_WRITE && attempt === 1) {
        if (kind === 'retried') {
          sim.run({ type: 'FailRun', data: { runId, ...lease(), error: { failureClass: 'connection', code: 'ECONNRESET', message: 'socket hang up' } }, metadata: meta() });
        } else {
          sim.wait(3_600_000);
          sim.run({ type: 'ReapRun', data: { runId, reaper: 'reaper:bench-host-0:4000' }, metadata: meta() });
        }
        yield;
        sim.wait(31_000 + random() * 5_000);
        owner = tag(serial + 2_000_000);
        sim.run({ type: 'ClaimRun', data: { runId, owner }, metadata: meta() });
        attempt = sim.state.attempt;
        yield;
        sim.run({ type: 'StartStep', data: { runId, ...lease(), round, callIndex, tool }, metadata: meta() });
        yield;
        sim.wait(20);
      }
      const failed = random() < 0.04;
      sim.run({
        type: 'RecordToolExecution',
        data: failed
          ? { runId, ...lease(), round, callIndex, outcome: 'failed', error: { failureClass: 'clientError', code: 'NOT_FOUND', message: `No such entry for ticket ${serial}` } }
          : { runId, ...lease(), round, callIndex, outcome: 'succeeded', result: toolResult(tool, serial + callIndex, random) },
        metadata: meta(),
      });
      if (tool.effect !== ToolEffect.READ_ONLY && (kind === 'auditFailedClosed' || kind === 'auditMissing')) {
        yield;
        if (kind === 'auditFailedClosed') {
          // The audit append failed: the run fails closed, and the saga later records the gap on the settled run.
          sim.run({ type: 'FailRun', data: { runId, ...lease(), error: { failureClass: 'unknown', code: 'AUDIT_PERSISTENCE_FAILED', message: `Audit of write step ${stepId} was not stored` }, reason: 'AUDIT_PERSISTENCE_FAILED' }, metadata: meta() });
          yield;
        }
        // The process died before the audit (auditMissing), or the audit was refused (auditFailedClosed): the saga reports it.
        sim.wait(60_000 + random() * 1000);
        sim.run({ type: 'ReportAuditGap', data: { runId, stepId, detectedBy: 'audit-gap-saga:bench-host-0:4000:s1' }, metadata: meta() });
        return;
      }
      sim.auditStep(round, callIndex, attempt);
      yield;
    }
  }
  sim.wait(5);
  sim.run({ type: 'StartStep', data: { runId, ...lease(), round }, metadata: meta() });
  yield;
  sim.wait(600 + random() * 2400);
  sim.run({ type: 'RecordModelResponse', data: { runId, ...lease(), round, response: { type: 'final', content: text(random, 120, 380) } }, metadata: meta() });
  sim.auditStep(round, undefined, attempt);
  yield;
  sim.run({ type: 'CompleteRun', data: { runId, ...lease(), finalAnswer: text(random, 120, 380) }, metadata: meta() });
}

/**
 * Generates at least `targetEvents` events into a new SQLite event store at
 * `path` (whole runs: a few more events than asked).
 */
export async function generateHistory(options: { readonly path: string; readonly targetEvents: number; readonly seed?: number; readonly log?: (line: string) => void }): Promise<GeneratedHistory> {
  const started = Date.now();
  const random = seededRandom(options.seed ?? 20261130);
  const decider = createRunDecider();
  const store = SqliteEventStore.open({ path: options.path, maxBatchSize: 8192 });
  const eventsByType: Record<string, number> = {};
  const runsByOutcome: Record<string, number> = {};
  let runEvents = 0;
  let auditEvents = 0;
  let appends = 0;
  let runs = 0;
  let pending: Promise<unknown>[] = [];
  let clock = Date.UTC(2026, 10, 1);
  const emit = (op: Op) => {
    for (const event of op.events) eventsByType[event.type] = (eventsByType[event.type] ?? 0) + 1;
    if (op.kind === 'run') runEvents += op.events.length;
    else auditEvents += op.events.length;
    appends += 1;
    const nextRevision = next(op.revision, 1);
    pending.push(store.append(op.stream, toEventData(op.stream, nextRevision, op.events, { correlationId: op.runId }), { expectedRevision: op.revision }));
  };
  const active: Array<{ sim: SimulatedRun; script: RunScript }> = [];
  const startRun = () => {
    const sim = new SimulatedRun(decider, emit, clock);
    clock += 1 + Math.floor(random() * 40);
    active.push({ sim, script: runScript(sim, pickKind(random), runs, random) });
    runs += 1;
  };
  try {
    let lastLog = Date.now();
    while (runEvents + auditEvents < options.targetEvents || active.length > 0) {
      while (active.length < CONCURRENT_RUNS && runEvents + auditEvents < options.targetEvents) startRun();
      // The run whose next decision comes first in simulated time decides it.
      let earliest = 0;
      for (let i = 1; i < active.length; i++) if ((active[i]?.sim.now ?? 0) < (active[earliest]?.sim.now ?? 0)) earliest = i;
      const current = active[earliest] as { sim: SimulatedRun; script: RunScript };
      if (current.script.next().done === true) {
        runsByOutcome[current.sim.outcome] = (runsByOutcome[current.sim.outcome] ?? 0) + 1;
        active.splice(earliest, 1);
      }
      if (pending.length >= APPENDS_PER_WAVE) {
        await Promise.all(pending);
        pending = [];
        if (Date.now() - lastLog > 5_000) {
          lastLog = Date.now();
          options.log?.(`generating: ${runEvents + auditEvents} of ${options.targetEvents} events`);
        }
      }
    }
    await Promise.all(pending);
  } finally {
    await store.close();
  }
  return { path: options.path, runs, events: runEvents + auditEvents, runEvents, auditEvents, appends, eventsByType, runsByOutcome, seconds: (Date.now() - started) / 1000 };
}
