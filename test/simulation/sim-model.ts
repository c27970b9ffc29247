import fc from 'fast-check';
import { SIM_AGENT_NAMES } from './sim-agents';

/*
 * The model of a schedule: what may happen to the runtime, as data that
 * fast-check generates and shrinks. A schedule is a few runs enqueued at the
 * start, then a list of actions played one after the other (each followed by
 * the scheduler draining everything it started: see sim-world.ts), then a
 * settle phase whose choices are part of the schedule too.
 *
 * Processes are two slots (0 and 1), each a real ExecutionModule over the
 * shared in-memory stores; a crashed slot is replaced by a fresh process.
 * "pick" fields choose among what exists when the action is played (a run,
 * a paused segment), modulo their number, so that any shrunk schedule stays
 * playable.
 */

/** A process slot. */
export type Slot = 0 | 1;

/**
 * How far a segment goes: it passes `pauseAfter` crash points and pauses at
 * the next one (null: it runs to its end without pausing).
 */
export type PauseAfter = number | null;

/** An action that starts something (or changes the world at once), and may be played together with another. */
export type BasicAction =
  /** Enqueue a run of an agent (RunService.enqueue). */
  | { readonly kind: 'enqueue'; readonly agent: string; readonly slot: Slot }
  /** Start an interactive run: its caller executes a segment (RunService.runInteractive). */
  | { readonly kind: 'interactive'; readonly agent: string; readonly slot: Slot; readonly pauseAfter: PauseAfter }
  /** A worker of the slot claims a due run and executes a segment (WorkerPool.runOnce). */
  | { readonly kind: 'step'; readonly slot: Slot; readonly pauseAfter: PauseAfter }
  /** A paused segment goes on from its crash point (it may have lost its lease meanwhile). */
  | { readonly kind: 'resume'; readonly pick: number; readonly pauseAfter: PauseAfter }
  /** The clock moves forward. */
  | { readonly kind: 'advance'; readonly ms: number }
  /** A reaper pass (Reaper.reapOnce). */
  | { readonly kind: 'reap'; readonly slot: Slot }
  /** A deadline check of the audit-gap saga (AuditGapSaga.checkDeadlines). */
  | { readonly kind: 'saga'; readonly slot: Slot }
  /** Someone cancels a run (RunService.cancel). */
  | { readonly kind: 'cancel'; readonly pick: number; readonly slot: Slot }
  /** A person decides on a run waiting for approval (RunService.decideApproval). */
  | { readonly kind: 'decide'; readonly pick: number; readonly approve: boolean; readonly slot: Slot }
  /** A person answers a run waiting for input (RunService.submitInput). */
  | { readonly kind: 'input'; readonly pick: number; readonly slot: Slot }
  /** The audit store refuses every append, until healed. */
  | { readonly kind: 'breakAudit' }
  | { readonly kind: 'healAudit' }
  /** The model provider fails (HTTP 503, retryable) until it recovers. */
  | { readonly kind: 'modelOutage'; readonly on: boolean }
  /** Every tool call throws (the run goes on: the model sees the error) until it stops. */
  | { readonly kind: 'toolFault'; readonly on: boolean };

/** Everything a schedule may do. */
export type Action =
  | BasicAction
  /** A process dies: its paused segments never go on; a fresh process takes its slot. */
  | { readonly kind: 'crash'; readonly slot: Slot }
  /**
   * Two actions started together: the second after `offset` microtask turns,
   * so their awaits interleave. At most one of them runs a segment.
   */
  | { readonly kind: 'together'; readonly first: BasicAction; readonly second: BasicAction; readonly offset: number }
  /**
   * Concurrent decisions on one run: 2 to 4 of approvals, denials, input
   * answers, cancels and reaper passes, all picking the same run, each
   * started `offsets[i]` microtask turns after the one before, so that their
   * awaits interleave. No segment runs among them.
   */
  | { readonly kind: 'race'; readonly members: readonly BasicAction[]; readonly offsets: readonly number[] };

/** What the settle phase does with the segments still paused when the actions end. */
export type PausedAtSettle =
  /** They go on at once, to their end. */
  | 'resume'
  /** Their processes die. */
  | 'crash'
  /** The clock passes every lease and the reaper passes, then they go on (stale segments). */
  | 'expireThenResume';

/** The settle phase's choices. */
export interface SettlePlan {
  readonly paused: PausedAtSettle;
  /** Decisions of the approvals still pending, in order, cycled. */
  readonly approvals: readonly boolean[];
}

/** Where a world keeps the audit streams: a store of their own, or the run store (a step's records in one commit). */
export type AuditPlacement = 'own store' | 'run store';

/** One generated schedule. */
export interface Schedule {
  /**
   * Where the audit streams live: a store of their own, or the run store (a
   * step's records in one commit). @default 'own store'
   */
  readonly audit?: AuditPlacement;
  /** Runs enqueued before the first action. */
  readonly initial: readonly string[];
  readonly actions: readonly Action[];
  readonly settle: SettlePlan;
}

/** The lease of the simulation's runtime (the product's default). */
export const LEASE_MS = 900_000;

const slot = fc.constantFrom<Slot>(0, 1);
const agent = fc.constantFrom(...SIM_AGENT_NAMES);
const pick = fc.nat({ max: 7 });
/** Mostly short pauses (the next crash point or the one after), sometimes none. */
const pauseAfter: fc.Arbitrary<PauseAfter> = fc.oneof({ weight: 3, arbitrary: fc.nat({ max: 3 }) }, { weight: 2, arbitrary: fc.constant(null) });
/** A small step of time, or past a lease (900 s), or past a retry's backoff. */
const advance = fc.oneof(
  { weight: 3, arbitrary: fc.integer({ min: 1, max: 60_000 }) },
  { weight: 2, arbitrary: fc.integer({ min: LEASE_MS + 1, max: LEASE_MS + 120_000 }) },
  { weight: 1, arbitrary: fc.integer({ min: 60_001, max: 600_000 }) },
);

/** Actions that run a segment (at most one segment runs at a time: see sim-world.ts). */
const segmentAction: fc.Arbitrary<BasicAction> = fc.oneof(
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('interactive' as const), agent, slot, pauseAfter }) },
  { weight: 12, arbitrary: fc.record({ kind: fc.constant('step' as const), slot, pauseAfter }) },
  { weight: 10, arbitrary: fc.record({ kind: fc.constant('resume' as const), pick, pauseAfter }) },
);

/** Actions of the service, the operators, the people and the environment. */
const otherAction: fc.Arbitrary<BasicAction> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('enqueue' as const), agent, slot }) },
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('advance' as const), ms: advance }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('reap' as const), slot }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('saga' as const), slot }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('cancel' as const), pick, slot }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('decide' as const), pick, approve: fc.boolean(), slot }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('input' as const), pick, slot }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'breakAudit' as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'healAudit' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('modelOutage' as const), on: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('toolFault' as const), on: fc.boolean() }) },
);

const offset = fc.nat({ max: 12 });
/** Two actions started together, of which at most one runs a segment. */
const together = fc.oneof(
  fc.record({ kind: fc.constant('together' as const), first: segmentAction, second: otherAction, offset }),
  fc.record({ kind: fc.constant('together' as const), first: otherAction, second: segmentAction, offset }),
  fc.record({ kind: fc.constant('together' as const), first: otherAction, second: otherAction, offset }),
);

/** One contender of a race on the run `pick` chooses. */
const contender = (racePick: number): fc.Arbitrary<BasicAction> =>
  fc.oneof(
    { weight: 4, arbitrary: fc.record({ kind: fc.constant('decide' as const), pick: fc.constant(racePick), approve: fc.boolean(), slot }) },
    { weight: 3, arbitrary: fc.record({ kind: fc.constant('input' as const), pick: fc.constant(racePick), slot }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('cancel' as const), pick: fc.constant(racePick), slot }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('reap' as const), slot }) },
  );
/** Concurrent decisions on one run (and cancels and reaper passes among them). */
const race = pick.chain((racePick) =>
  fc.record({
    kind: fc.constant('race' as const),
    members: fc.array(contender(racePick), { minLength: 2, maxLength: 4 }),
    offsets: fc.array(fc.nat({ max: 6 }), { minLength: 3, maxLength: 3 }),
  }),
);

export const action: fc.Arbitrary<Action> = fc.oneof(
  { weight: 23, arbitrary: segmentAction },
  { weight: 28, arbitrary: otherAction },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('crash' as const), slot }) },
  { weight: 5, arbitrary: together },
  { weight: 4, arbitrary: race },
);

/** Whether an action runs a segment. */
export function runsSegment(a: BasicAction): boolean {
  return a.kind === 'step' || a.kind === 'resume' || a.kind === 'interactive';
}

/** Schedules of at most `maxActions` actions. */
export function scheduleArbitrary(maxActions: number): fc.Arbitrary<Schedule> {
  return fc.record({
    audit: fc.constantFrom<AuditPlacement>('own store', 'run store'),
    initial: fc.array(agent, { minLength: 1, maxLength: 3 }),
    actions: fc.array(action, { maxLength: maxActions, size: 'medium' }),
    settle: fc.record({ paused: fc.constantFrom<PausedAtSettle>('resume', 'crash', 'expireThenResume'), approvals: fc.array(fc.boolean(), { minLength: 1, maxLength: 3 }) }),
  });
}

/** One line per action, for reports. */
export function describeAction(a: Action): string {
  switch (a.kind) {
    case 'together':
      return `together(${describeAction(a.first)} | +${a.offset} microtasks | ${describeAction(a.second)})`;
    case 'race':
      return `race(${a.members.map((m, i) => `${i === 0 ? '' : `+${a.offsets[i - 1] ?? 0} | `}${describeAction(m)}`).join(' ')})`;
    default: {
      const { kind, ...rest } = a;
      const args = Object.entries(rest).map(([k, v]) => `${k}=${JSON.stringify(v)}`);
      return `${kind}(${args.join(', ')})`;
    }
  }
}
