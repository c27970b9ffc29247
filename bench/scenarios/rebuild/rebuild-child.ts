/**
 * The child process of the rebuild benchmark: one subject per process, so
 * that its peak resident memory (`maxRSS`) is its own. The scenario runs it
 * transpiled ahead (`precompile.ts`), under plain node:
 *
 *   node <compiled>/bench/scenarios/rebuild/rebuild-child.js '<RebuildChildRequest as JSON>'
 *
 * (by hand, from the sources: `node -r ts-node/register/transpile-only -r
 * tsconfig-paths/register bench/scenarios/rebuild/rebuild-child.ts '<json>'`,
 * with ts-node's compiler in the RSS).
 *
 * Subjects:
 * - `product`: the operator's rebuild of every projection (`ProjectionRebuilder`
 *   over the stores and sources the CLI's `projections rebuild` opens) into a
 *   fresh read-model file;
 * - `baseline-readAll`: reading the same events with `SqliteEventStore.readAll`
 *   (the same filter the rebuild uses), which parses their data and metadata;
 * - `baseline-raw`: a raw better-sqlite3 `SELECT ... ORDER BY position`,
 *   iterated, with `JSON.parse` of data and metadata.
 *
 * Every subject loads the same modules (this file's imports), so the RSS at
 * start is the same floor for all. The result goes to the parent over IPC.
 */
import Database from 'better-sqlite3';
import { createEventStore } from '@agent-ledger/event-store';
import { PROJECTED_EVENTS_FILTER, ProjectionRebuilder, ProjectionStore } from '@agent-ledger/projections';
import { readModelSources } from '@agent-ledger/module';

/** The subjects a child can measure. */
export type RebuildSubject = 'product' | 'baseline-readAll' | 'baseline-raw';

/** What the parent asks a child to do. */
export interface RebuildChildRequest {
  readonly subject: RebuildSubject;
  /** The event store file (the history). */
  readonly eventStorePath: string;
  /** The fresh read-model file (`product` only). */
  readonly readModelPath: string;
}

/** What a child reports. */
export interface RebuildChildResult {
  readonly subject: RebuildSubject;
  /** Events read (for the product: `RebuildResult.eventsDone`). */
  readonly events: number;
  /** Wall time of the measured work, ms. */
  readonly ms: number;
  /** CPU time of the process over the measured work (user + system, `process.cpuUsage`), ms: what a loaded machine disturbs less. */
  readonly cpuMs: number;
  /** RSS right before the measured work (modules loaded, store open), MB. */
  readonly rssAtStartMb: number;
  /** Peak RSS of the whole process (`process.resourceUsage().maxRSS`), MB. */
  readonly peakRssMb: number;
  /** Product only: rows of the rebuilt `runs` table (checked against the runs generated). */
  readonly runsProjected: number | null;
  /** Product only: events applied, summed over the projections. */
  readonly eventsApplied: number | null;
  /**
   * Product only: events/s over the first and the last tenth of the history
   * (from the rebuild's progress records; null when too few), to see whether
   * the rate holds as the read model grows.
   */
  readonly firstTenthEventsPerSecond: number | null;
  readonly lastTenthEventsPerSecond: number | null;
  /** `process.hrtime` (µs) at the start and end of the measured work, to cut a CPU profile to it. */
  readonly hrtimeStartUs: number;
  readonly hrtimeEndUs: number;
}

const MB = 1024 * 1024;
const hrtimeUs = () => Number(process.hrtime.bigint() / 1000n);
const cpuSince = (before: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
};
const NOT_A_REBUILD = { runsProjected: null, eventsApplied: null, firstTenthEventsPerSecond: null, lastTenthEventsPerSecond: null } as const;

/** Events/s over the first and the last tenth of the events, from progress records (events done, ms since the start). */
function rateOfTenths(progress: ReadonlyArray<{ readonly events: number; readonly ms: number }>, total: number, totalMs: number) {
  const first = progress.find((p) => p.events >= total / 10 && p.ms > 0);
  const lastStart = progress.find((p) => p.events >= (total * 9) / 10);
  return {
    firstTenthEventsPerSecond: first === undefined ? null : (first.events * 1000) / first.ms,
    lastTenthEventsPerSecond: lastStart === undefined || totalMs <= lastStart.ms ? null : ((total - lastStart.events) * 1000) / (totalMs - lastStart.ms),
  };
}

async function rebuildAll(request: RebuildChildRequest): Promise<Omit<RebuildChildResult, 'peakRssMb'>> {
  // As `agent-ledger projections rebuild` opens them (apps/agent-ledger/src/cli/projections-rebuild.command.ts).
  const runStore = createEventStore({ env: { EVENTSTORE_CONNECTION_STRING: '' }, sqlite: { path: request.eventStorePath } });
  const readModels = ProjectionStore.open({ path: request.readModelPath });
  let closed = false;
  try {
    const rebuilder = new ProjectionRebuilder(readModels, readModelSources(runStore));
    const rssAtStartMb = process.memoryUsage().rss / MB;
    const hrtimeStartUs = hrtimeUs();
    const cpuBefore = process.cpuUsage();
    const began = performance.now();
    const progress: Array<{ readonly events: number; readonly ms: number }> = [];
    const result = await rebuilder.rebuild({ onProgress: (p) => progress.push({ events: p.eventsDone, ms: p.elapsedMs }) });
    const ms = performance.now() - began;
    const cpuMs = cpuSince(cpuBefore);
    const hrtimeEndUs = hrtimeUs();
    readModels.close();
    closed = true;
    const check = new Database(request.readModelPath, { readonly: true });
    let runsProjected: number;
    try {
      runsProjected = (check.prepare('SELECT count(*) AS n FROM runs').get() as { n: number }).n;
    } finally {
      check.close();
    }
    const tenths = rateOfTenths(progress, result.eventsDone, result.elapsedMs);
    return { subject: 'product', events: result.eventsDone, ms, cpuMs, rssAtStartMb, runsProjected, eventsApplied: result.eventsApplied, ...tenths, hrtimeStartUs, hrtimeEndUs };
  } finally {
    if (!closed) readModels.close();
    await runStore.close();
  }
}

async function readAllBaseline(request: RebuildChildRequest): Promise<Omit<RebuildChildResult, 'peakRssMb'>> {
  const store = createEventStore({ env: { EVENTSTORE_CONNECTION_STRING: '' }, sqlite: { path: request.eventStorePath } });
  try {
    const rssAtStartMb = process.memoryUsage().rss / MB;
    const hrtimeStartUs = hrtimeUs();
    const cpuBefore = process.cpuUsage();
    const began = performance.now();
    let events = 0;
    let touched = 0;
    for await (const event of store.readAll({ fromPosition: 'start', filter: PROJECTED_EVENTS_FILTER })) {
      events += 1;
      // Touch the parsed payload, as a projection would read it.
      if (event.data['runId'] !== undefined) touched += 1;
    }
    const ms = performance.now() - began;
    const cpuMs = cpuSince(cpuBefore);
    if (touched === 0 && events > 0) throw new Error('readAll baseline: no event carried a runId');
    return { subject: 'baseline-readAll', events, ms, cpuMs, rssAtStartMb, ...NOT_A_REBUILD, hrtimeStartUs, hrtimeEndUs: hrtimeUs() };
  } finally {
    await store.close();
  }
}

function rawBaseline(request: RebuildChildRequest): Omit<RebuildChildResult, 'peakRssMb'> {
  const db = new Database(request.eventStorePath, { readonly: true });
  try {
    const rssAtStartMb = process.memoryUsage().rss / MB;
    const hrtimeStartUs = hrtimeUs();
    const cpuBefore = process.cpuUsage();
    const began = performance.now();
    let events = 0;
    let touched = 0;
    const rows = db.prepare('SELECT position, stream_name, revision, event_id, event_type, data, metadata, created_at FROM events ORDER BY position').iterate() as IterableIterator<{
      data: string;
      metadata: string;
    }>;
    for (const row of rows) {
      const data = JSON.parse(row.data) as Record<string, unknown>;
      JSON.parse(row.metadata);
      events += 1;
      if (data['runId'] !== undefined) touched += 1;
    }
    const ms = performance.now() - began;
    const cpuMs = cpuSince(cpuBefore);
    if (touched === 0 && events > 0) throw new Error('raw baseline: no event carried a runId');
    return { subject: 'baseline-raw', events, ms, cpuMs, rssAtStartMb, ...NOT_A_REBUILD, hrtimeStartUs, hrtimeEndUs: hrtimeUs() };
  } finally {
    db.close();
  }
}

async function main(): Promise<void> {
  const request = JSON.parse(process.argv[2] ?? '') as RebuildChildRequest;
  const measured =
    request.subject === 'product' ? await rebuildAll(request) : request.subject === 'baseline-readAll' ? await readAllBaseline(request) : rawBaseline(request);
  const result: RebuildChildResult = { ...measured, peakRssMb: process.resourceUsage().maxRSS / 1024 };
  if (process.send === undefined) {
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return;
  }
  await new Promise<void>((resolve, reject) => process.send?.(result, undefined, undefined, (error) => (error ? reject(error) : resolve())));
}

if (require.main === module) {
  main().then(
    () => process.disconnect?.(),
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exitCode = 1;
      process.disconnect?.();
    },
  );
}
