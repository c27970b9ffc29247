import { foldEvents } from '../decider';
import type { RunCommand, StepTool } from './run-commands';
import { createRunDecider } from './run-decider';
import type { RunEvent } from './run-events';
import { isTerminalRunEvent } from './run-events';
import { RunHistory } from '../testing/run-history';
import { apiKeyPrincipal, busPrincipal } from '../principal/principal';

const T0 = Date.UTC(2026, 0, 1);
const SECOND = 1000;
const decider = createRunDecider({ backoffBaseSeconds: 1, backoffCapSeconds: 4 });
const OWNERS = ['worker:host-a:1', 'worker:host-b:2'];
const TOOLS: readonly StepTool[] = [
  { name: 'clock.now', effect: 'READ_ONLY' },
  { name: 'files.write', effect: 'IDEMPOTENT_WRITE' },
  { name: 'files.append', effect: 'NON_IDEMPOTENT_WRITE' },
];

/** A small, seedable PRNG (mulberry32), so a failing walk can be replayed from its seed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Sends random commands (many of them stale, early or out of order) and keeps what the decider accepts. */
function randomWalk(seed: number, length: number): RunEvent[] {
  const random = prng(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const events: RunEvent[] = [];
  let now = T0;
  const runId = 'run-1';
  let state = foldEvents(decider, events);
  // Mostly the current holder (so walks get far), sometimes a stale or foreign segment.
  const segment = () =>
    state.lease !== null && random() < 0.85
      ? { owner: state.lease.owner, attempt: state.lease.attempt }
      : { owner: pick(OWNERS), attempt: 1 + Math.floor(random() * 5) };
  const commands: Array<() => RunCommand> = [
    () => ({ type: 'ClaimRun', data: { runId, owner: pick(OWNERS) }, metadata: { now } }),
    () => ({ type: 'RenewLease', data: { runId, ...segment() }, metadata: { now } }),
    () => ({ type: 'StartStep', data: { runId, ...segment(), round: Math.floor(random() * 3) }, metadata: { now } }),
    () => {
      // Half the writes come pre-approved by the agent: the pre-approval and the fence in one append.
      const tool = pick(TOOLS);
      const preApproved = tool.effect !== 'READ_ONLY' && random() < 0.5 ? { preApprovedBy: 'demo-agent' } : {};
      return { type: 'StartStep', data: { runId, ...segment(), round: Math.floor(random() * 3), callIndex: Math.floor(random() * 2), tool: { ...tool, ...preApproved } }, metadata: { now } };
    },
    () => ({
      type: 'RecordModelResponse',
      data: { runId, ...segment(), round: Math.floor(random() * 3), response: { type: 'final', content: 'x' } },
      metadata: { now },
    }),
    () => ({
      type: 'RecordToolExecution',
      data: { runId, ...segment(), round: Math.floor(random() * 3), callIndex: Math.floor(random() * 2), outcome: 'succeeded', result: null },
      metadata: { now },
    }),
    () => ({ type: 'CompleteRun', data: { runId, ...segment(), finalAnswer: 'ok' }, metadata: { now } }),
    () => ({
      type: 'FailRun',
      data: { runId, ...segment(), error: { failureClass: pick(['serverError', 'auth', 'connection'] as const), message: 'x' } },
      metadata: { now },
    }),
    () => ({ type: 'ReapRun', data: { runId, reaper: 'reaper:h:1' }, metadata: { now } }),
    () => ({ type: 'RequestCancel', data: { runId, requestedBy: busPrincipal('op') }, metadata: { now } }),
    () => {
      const tool = pick(TOOLS.filter((t) => t.effect !== 'READ_ONLY'));
      const at = { round: Math.floor(random() * 3), callIndex: Math.floor(random() * 2) };
      return { type: 'RecordPreApproval', data: { runId, ...segment(), ...at, toolName: tool.name, effect: tool.effect, agent: 'demo-agent' }, metadata: { now } };
    },
    () => ({
      type: 'RecordModelResponse',
      data: {
        runId,
        ...segment(),
        round: Math.floor(random() * 3),
        response: { type: 'toolCalls', calls: [{ toolName: 'files.append', arguments: {} }, { toolName: 'files.write', arguments: {} }] },
      },
      metadata: { now },
    }),
    () => ({
      type: 'RequestApproval',
      data: { runId, ...segment(), round: Math.floor(random() * 3), calls: [{ callIndex: Math.floor(random() * 2), effect: 'NON_IDEMPOTENT_WRITE', requirement: 'write' }], onDenial: pick(['tellModel', 'endRun'] as const) },
      metadata: { now },
    }),
    () => ({ type: 'DecideApproval', data: { runId, decision: pick(['approve', 'deny'] as const), decidedBy: apiKeyPrincipal('alice') }, metadata: { now } }),
    () => ({ type: 'RequestInput', data: { runId, ...segment(), round: Math.floor(random() * 3), callIndex: Math.floor(random() * 2), prompt: 'which?' }, metadata: { now } }),
    () => ({ type: 'SubmitInput', data: { runId, input: 'this one', submittedBy: busPrincipal('bob') }, metadata: { now } }),
  ];
 // Indexes into `commands`, repeated by weight: settling commands are rarer, so walks reach retries.
  const WEIGHTED = [0, 0, 0, 1, 2, 2, 3, 3, 3, 4, 4, 5, 5, 5, 6, 7, 7, 7, 8, 8, 8, 9, 10, 10, 10, 11, 11, 12, 12, 13, 13, 14, 15].map((i) => commands[i] as () => RunCommand);
  events.push(...new RunHistory(decider, runId).request(now).events);
  state = foldEvents(decider, events);
  for (let i = 0; i < length; i++) {
    now += Math.floor(random() * 400) * SECOND;
    const decision = decider.decide(pick(WEIGHTED)(), state);
    if (decision.kind === 'accepted') {
      events.push(...decision.events);
      state = foldEvents(decider, events);
    }
  }
  return events;
}

describe('run decider: invariants over random command sequences', () => {
  const seeds = Array.from({ length: 300 }, (_, i) => i + 1);

  it.each(seeds)('seed %i: at most one terminal event, and nothing but a gap record after it', (seed) => {
    const events = randomWalk(seed, 60);
    const terminalAt = events.findIndex(isTerminalRunEvent);
    expect(events.filter(isTerminalRunEvent).length).toBeLessThanOrEqual(1);
    if (terminalAt >= 0) {
      expect(events.slice(terminalAt + 1).filter((e) => e.type !== 'AuditGapDetected')).toEqual([]);
    }
  });

  it.each(seeds)('seed %i: no non-idempotent write step starts twice, no completed step starts again', (seed) => {
    const events = randomWalk(seed, 60);
    const completed = new Set<string>();
    const nonIdempotentStarts = new Map<string, number>();
    for (const event of events) {
      if (event.type === 'StepStarted') {
        expect(completed.has(event.data.stepId)).toBe(false);
        if (event.data.effect === 'NON_IDEMPOTENT_WRITE') {
          nonIdempotentStarts.set(event.data.stepId, (nonIdempotentStarts.get(event.data.stepId) ?? 0) + 1);
        }
      }
      if (event.type === 'ModelResponded' || event.type === 'ToolExecuted') completed.add(event.data.stepId);
    }
    for (const starts of nonIdempotentStarts.values()) expect(starts).toBe(1);
  });

  it.each(seeds)('seed %i: a run executes at most 1 + MAX_REQUEUES times, and every segment event comes from the lease holder', (seed) => {
    const events = randomWalk(seed, 80);
    expect(events.filter((e) => e.type === 'RunClaimed').length).toBeLessThanOrEqual(4);
    let holder: { owner: string; attempt: number } | null = null;
    for (const event of events) {
      if (event.type === 'RunClaimed') holder = { owner: event.data.owner, attempt: event.data.attempt };
      if (event.type === 'RunRequeued' || isTerminalRunEvent(event)) holder = null;
      if (event.type === 'StepStarted' || event.type === 'LeaseRenewed') {
        expect(holder).toEqual({ owner: event.data.owner, attempt: event.data.attempt });
      }
    }
  });

  it('the walks reach every terminal outcome and retries (the generator is not trivially stuck)', () => {
    const types = new Set(seeds.flatMap((seed) => randomWalk(seed, 60).map((e) => (e.type === 'RunFailed' ? `RunFailed:${e.data.reason}` : e.type))));
    for (const type of ['RunCompleted', 'RunCancelled', 'RunRequeued', 'ToolExecuted', 'RunFailed:NOT_RETRYABLE', 'RunFailed:WRITE_INTERRUPTED', 'RunFailed:RETRIES_EXHAUSTED']) {
      expect(types).toContain(type);
    }
  });
});

describe('run decider: a retried run resumes after its last completed step', () => {
  it('refuses the completed steps and re-runs the interrupted idempotent write with the same key', () => {
    const a = { owner: OWNERS[0] as string, attempt: 1 };
    const b = { owner: OWNERS[1] as string, attempt: 2 };
    const calls = { type: 'toolCalls', calls: [{ toolName: 'clock.now', arguments: {} }, { toolName: 'files.write', arguments: {} }] } as const;
    const h = new RunHistory(decider)
      .request(T0)
      .claim(a.owner, T0)
      .startLlm(a, 0, T0)
      .respond(a, 0, calls, T0)
      .startTool(a, 0, 0, TOOLS[0] as StepTool, T0)
      .executed(a, 0, 0, { now: 'then' }, T0)
      .startTool(a, 0, 1, TOOLS[1] as StepTool, T0)
      .reap(T0 + 2000 * SECOND)
      .claim(b.owner, T0 + 2001 * SECOND);
    const state = foldEvents(decider, h.events);
    const start = (round: number, callIndex?: number, tool?: StepTool) =>
      decider.decide({ type: 'StartStep', data: { runId: 'run-1', ...b, round, callIndex, tool }, metadata: { now: T0 + 2002 * SECOND } }, state);

    expect(start(0)).toMatchObject({ kind: 'rejected', error: { code: 'STEP_ALREADY_COMPLETED' } });
    expect(start(0, 0, TOOLS[0])).toMatchObject({ kind: 'rejected', error: { code: 'STEP_ALREADY_COMPLETED' } });
    expect(state.steps.get('run-1/r0/t0')?.result).toEqual({ now: 'then' });
    expect(start(0, 1, TOOLS[1])).toMatchObject({
      kind: 'accepted',
      events: [{ type: 'StepStarted', data: { stepId: 'run-1/r0/t1', idempotencyKey: 'agent-ledger:run-1/r0/t1', attempt: 2 } }],
    });
  });
});
