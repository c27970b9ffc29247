import type { CpuProfile, ProfileNode } from './cpu-profile-format';
import { CPU_STAGES, cpuByStage, stageOfFrame } from './cpu-stages';

const ROOT = 'file:///work/repo';

/** A node of a synthetic profile. */
function node(id: number, functionName: string, url: string, children: number[] = []): ProfileNode {
  return { id, callFrame: { functionName, url, lineNumber: 0 }, children };
}

describe('CPU per tool step by stage: the attribution rules', () => {
  it.each([
    [`${ROOT}/libs/event-store/src/sqlite/sqlite-event-store.ts`, 'flush', 'event store (append, read, subscriptions)'],
    [`${ROOT}/libs/event-store/src/core/pull-subscription.ts`, 'next', 'event store (append, read, subscriptions)'],
    [`${ROOT}/libs/event-store/src/validation/json-checks.ts`, 'checkJson', 'JSON, hashing'],
    [`${ROOT}/libs/event-store/src/event-id.ts`, 'deterministicEventId', 'JSON, hashing'],
    [`${ROOT}/node_modules/@agent-ledger/event-store/dist/sqlite/sqlite-event-store.js`, 'flush', 'event store (append, read, subscriptions)'],
    [`${ROOT}/libs/domain/src/run/run-decider.ts`, 'decide', 'decider and domain'],
    [`${ROOT}/libs/runtime/src/execution/segment-runner.ts`, 'runSegment', 'segment, worker, queue (runtime)'],
    [`${ROOT}/libs/runtime/src/queue/queue-index.ts`, 'claimNext', 'segment, worker, queue (runtime)'],
    [`${ROOT}/libs/runtime/src/execution/audit-recorder.ts`, 'record', 'audit recorder'],
    [`${ROOT}/libs/runtime/src/persistence/decider-handler.ts`, 'AuditRecorder.record', 'audit recorder'],
    [`${ROOT}/libs/runtime/src/saga/audit-gap-saga.ts`, 'check', 'audit-gap saga'],
    [`${ROOT}/libs/runtime/src/bus/bus-handlers.ts`, 'execute', 'command bus, Nest'],
    [`${ROOT}/libs/projections/src/steps/steps.projection.ts`, 'apply', 'read models (projections)'],
    [`${ROOT}/node_modules/@nestjs/cqrs/dist/command-bus.js`, 'execute', 'command bus, Nest'],
    [`${ROOT}/node_modules/rxjs/dist/cjs/internal/Subject.js`, 'next', 'command bus, Nest'],
    [`${ROOT}/node_modules/better-sqlite3/lib/methods/transaction.js`, 'sqliteTransaction', 'SQLite native calls'],
    ['node:internal/crypto/hash', 'digest', 'JSON, hashing'],
    ['', 'run', 'SQLite native calls'],
    ['', 'all', 'SQLite native calls'],
    ['', 'parse', 'JSON, hashing'],
    ['', 'stringify', 'JSON, hashing'],
    ['', '(garbage collector)', 'garbage collection'],
  ])('%s %s -> %s', (url, functionName, stage) => {
    expect(stageOfFrame({ url, functionName })).toBe(stage);
  });

  it.each([
    ['node:internal/process/task_queues', 'processTicksAndRejections'],
    [`${ROOT}/node_modules/uuid/dist/index.js`, 'v4'],
    ['', '(program)'],
    ['', 'someBuiltin'],
  ])('%s %s names no stage of its own', (url, functionName) => {
    expect(stageOfFrame({ url, functionName })).toBeNull();
  });

  it('sums self time by stage in the window, gives an unnamed frame to the nearest named one below it, and leaves idle out', () => {
    // (root) -> segment -> promise tick -> native run ; (root) -> projection apply ; (root) -> tick alone ; (idle) ; (garbage collector)
    const nodes = [
      node(1, '(root)', '', [2, 5, 6, 7, 8]),
      node(2, 'runSegment', `${ROOT}/libs/runtime/src/execution/segment-runner.ts`, [3]),
      node(3, 'processTicksAndRejections', 'node:internal/process/task_queues', [4]),
      node(4, 'run', ''),
      node(5, 'apply', `${ROOT}/libs/projections/src/run-status/run-status.projection.ts`),
      node(6, 'listOnTimeout', 'node:internal/timers'),
      node(7, '(idle)', ''),
      node(8, '(garbage collector)', ''),
    ];
    // Samples at t = 1000 + cumulative deltas (µs); the window keeps t in [1100, 2000].
    const samples = [2, 3, 4, 5, 6, 7, 8, 2];
    const timeDeltas = [100, 200, 300, 100, 50, 100, 150, 5000];
    const profile: CpuProfile = { nodes, startTime: 1000, endTime: 7000, samples, timeDeltas };

    const all = cpuByStage(profile);
    expect(all.totalMs).toBeCloseTo((100 + 200 + 300 + 100 + 50 + 150 + 5000) / 1000);
    expect(all.stages['segment, worker, queue (runtime)']).toBeCloseTo((100 + 200 + 5000) / 1000);

    const windowed = cpuByStage(profile, { fromUs: 1100, toUs: 2000 });
    const rounded = Object.fromEntries(Object.entries(windowed.stages).map(([stage, ms]) => [stage, Math.round(ms * 1000) / 1000]));
    expect(rounded).toEqual({
      ...Object.fromEntries(CPU_STAGES.map((s) => [s, 0])),
      'segment, worker, queue (runtime)': 0.3, // its own 0.1 ms and the tick's 0.2 ms inside it
      'SQLite native calls': 0.3,
      'read models (projections)': 0.1,
      other: 0.05, // a timer with no named frame below it
      'garbage collection': 0.15,
    });
    expect(windowed.totalMs).toBeCloseTo(0.9);
  });

  it('names a sampled node the profile does not list', () => {
    const profile: CpuProfile = { nodes: [node(1, '(root)', '')], startTime: 0, endTime: 1, samples: [9], timeDeltas: [1] };
    expect(() => cpuByStage(profile)).toThrow('the profile samples node 9, which it does not list');
  });
});
