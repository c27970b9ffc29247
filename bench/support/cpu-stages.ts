/**
 * Where a process's CPU goes, by stage of a tool step: the attribution rules
 * of the `cpu` scenario, in one place (docs/benchmarks.md, "CPU per tool step
 * by stage").
 *
 * Each sample of a V8 CPU profile is given to one stage by its top frame (the
 * function running: self time), from the frame's file (package path) and
 * function name. A top frame that names no stage of its own (Node's internals,
 * a dependency that is not Nest, a builtin) passes the sample to the nearest
 * frame below it on the stack that does; none at all: `other`.
 */
import type { CpuProfile, ProfileNode, ProfileWindow } from './cpu-profile-format';
import { forEachSample } from './cpu-profile-format';

/** The stages, in the order the table lists them. */
export const CPU_STAGES = [
  'event store (append, read, subscriptions)',
  'decider and domain',
  'segment, worker, queue (runtime)',
  'audit recorder',
  'read models (projections)',
  'audit-gap saga',
  'command bus, Nest',
  'SQLite native calls',
  'JSON, hashing',
  'garbage collection',
  'other',
] as const;

/** One of {@link CPU_STAGES}. */
export type CpuStage = (typeof CPU_STAGES)[number];

/** The frame fields the rules read. */
export type StageFrame = Pick<ProfileNode['callFrame'], 'functionName' | 'url'>;

/** better-sqlite3's native methods (Statement, Database), as V8 names them in a profile (no file). */
const SQLITE_NATIVE = new Set(['run', 'get', 'all', 'iterate', 'exec', 'prepare', 'pragma', 'raw', 'pluck', 'expand', 'bind', 'columns', 'next']);
/** V8's JSON builtins as they appear in a profile (no file). */
const JSON_NATIVE = new Set(['parse', 'stringify']);

/** A package of this repository in a file path, as sources (`libs/<name>/`) or as installed (`@agent-ledger/<name>/`). */
const PACKAGE = /(?:\/libs\/|\/@agent-ledger\/)([a-z-]+)\/(.*)$/;

/**
 * The stage of one frame by itself, or null when the frame names none (the
 * sample then goes to a frame below it). Matches packages broadly (their
 * folders inside may move) and, where a file says less, function names.
 */
export function stageOfFrame(frame: StageFrame): CpuStage | null {
  const { functionName, url } = frame;
  if (url === '') {
    if (functionName === '(garbage collector)') return 'garbage collection';
    if (SQLITE_NATIVE.has(functionName)) return 'SQLite native calls';
    if (JSON_NATIVE.has(functionName)) return 'JSON, hashing';
    return null;
  }
  if (/\/node_modules\/better-sqlite3\//.test(url)) return 'SQLite native calls';
  if (/^node:internal\/crypto\/|\/node_modules\/(?:canonicalize|fast-json-stable-stringify)\//.test(url)) return 'JSON, hashing';
  if (/\/node_modules\/(?:@nestjs\/|rxjs\/|class-validator\/|class-transformer\/|reflect-metadata\/)/.test(url)) return 'command bus, Nest';
  const match = PACKAGE.exec(url);
  if (match === null) return null;
  const [, name, rest = ''] = match;
  switch (name) {
    case 'event-store':
      // The store's JSON checks of event data and its deterministic (SHA-1) event ids.
      return /(^|\/)(validation\/|event-id\.)/.test(rest) ? 'JSON, hashing' : 'event store (append, read, subscriptions)';
    case 'domain':
      return 'decider and domain';
    case 'projections':
      return 'read models (projections)';
    case 'validation':
    case 'module':
      return 'command bus, Nest';
    case 'runtime':
      if (/(^|\/)saga\//.test(rest) || /AuditGap/.test(functionName)) return 'audit-gap saga';
      if (/audit-recorder/.test(rest) || /AuditRecorder/.test(functionName)) return 'audit recorder';
      if (/(^|\/)bus\//.test(rest)) return 'command bus, Nest';
      return 'segment, worker, queue (runtime)';
    default:
      return null;
  }
}

/** CPU time by stage, ms, and the total sampled (idle excluded). */
export interface CpuByStage {
  readonly totalMs: number;
  readonly stages: Readonly<Record<CpuStage, number>>;
}

/**
 * Sums a profile's sampled time by stage, within `window` (the monotonic
 * clock of `process.hrtime`, µs, which V8's profile timestamps share on
 * Linux) when given. `(idle)` is not CPU and is left out; `(program)` (V8's
 * own work outside any JavaScript frame) is `other`.
 */
export function cpuByStage(profile: CpuProfile, window?: ProfileWindow): CpuByStage {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const stageOfNode = new Map<number, CpuStage | null>();
  const resolve = (id: number): CpuStage | null => {
    if (stageOfNode.has(id)) return stageOfNode.get(id) ?? null;
    const node = byId.get(id);
    if (node === undefined) throw new Error(`the profile samples node ${id}, which it does not list`);
    const own = stageOfFrame(node.callFrame);
    const parent = parentOf.get(id);
    const stage = own ?? (parent === undefined ? null : resolve(parent));
    stageOfNode.set(id, stage);
    return stage;
  };
  const stages = Object.fromEntries(CPU_STAGES.map((s) => [s, 0])) as Record<CpuStage, number>;
  let totalUs = 0;
  forEachSample(profile, window ?? null, (node, delta) => {
    if (node.callFrame.functionName === '(idle)') return;
    const stage = resolve(node.id) ?? 'other';
    stages[stage] += delta / 1000;
    totalUs += delta;
  });
  return { totalMs: totalUs / 1000, stages };
}
