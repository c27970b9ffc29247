/**
 * Rebuild (issue 9, scenario 3): rebuilding all projections from a history
 * of 1 million events (quick: 20,000), in events/s and peak RSS, against the
 * baseline of reading and parsing the same events.
 *
 * Method (docs/benchmarks.md):
 * 1. Once per scenario run, a realistic history is generated into a SQLite
 *    event store file (`rebuild/history.ts`: the domain's deciders, the
 *    runtime's codec and stream names, runs interleaved as workers run them).
 * 2. Each round runs three child processes, one subject each (so that each
 *    peak RSS is its own), under plain `node` on JavaScript transpiled once
 *    ahead (`rebuild/precompile.ts`: no compiler in their memory), in an
 *    order that rotates from round to round:
 *    the product's rebuild of every projection (`ProjectionRebuilder`, as
 *    `agent-ledger projections rebuild` runs it) into a fresh read-model
 *    file; `SqliteEventStore.readAll` of the same events (parsed); a raw
 *    better-sqlite3 `SELECT` iterated with `JSON.parse`.
 * 3. events/s = events read / wall time of the work, inside the child;
 *    peak RSS = `process.resourceUsage().maxRSS` of the child.
 *
 * `BENCH_REBUILD_CPU_PROFILE=<dir>` adds one more product rebuild under
 * `node --cpu-prof` (the profile is kept in `<dir>`) and lists where its time
 * went in the notes.
 */
import { mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchContext, BenchScenario, Measurement, Ratio, ScenarioResult, TargetCheck } from '../support/bench-scenario';
import { formatNumber } from '../support/report';
import { median, ratioSamples } from '../support/stats';
import { runChild } from './rebuild/child-process';
import { summariseCpuProfile } from './rebuild/cpu-profile';
import type { GeneratedHistory } from './rebuild/history';
import { generateHistory } from './rebuild/history';
import { precompile } from './rebuild/precompile';
import type { RebuildChildRequest, RebuildChildResult, RebuildSubject } from './rebuild/rebuild-child';

/** Events of the history: the size of issue 9's target, and the smoke size. */
export const REBUILD_EVENTS = { full: 1_000_000, quick: 20_000 } as const;
/** Issue 9's target rate: at least this many events/s for 1M events. */
export const REBUILD_TARGET_EVENTS_PER_SECOND = 100_000;
/** Issue 9's target memory: a peak RSS under this many MB for 1M events. */
export const REBUILD_TARGET_PEAK_RSS_MB = 300;

const CHILD_SOURCE = join(__dirname, 'rebuild', 'rebuild-child.ts');
const SUBJECTS: readonly RebuildSubject[] = ['product', 'baseline-readAll', 'baseline-raw'];
const WORK: Readonly<Record<RebuildSubject, string>> = {
  product: 'rebuild all projections',
  'baseline-readAll': 'SqliteEventStore.readAll (parsed)',
  'baseline-raw': 'raw SELECT + JSON.parse',
};

function fileSizeMb(path: string): number {
  let bytes = 0;
  for (const suffix of ['', '-wal']) {
    try {
      bytes += statSync(`${path}${suffix}`).size;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  return bytes / (1024 * 1024);
}

/** The compiled child entry and its folder. */
interface CompiledChild {
  readonly entry: string;
  readonly outDir: string;
}

/** Runs one subject in its child process and checks that it read the whole history. */
async function measure(child: CompiledChild, subject: RebuildSubject, history: GeneratedHistory, readModelPath: string, nodeFlags: readonly string[] = []): Promise<RebuildChildResult> {
  const request: RebuildChildRequest = { subject, eventStorePath: history.path, readModelPath };
  const result = await runChild<RebuildChildResult>(child.entry, JSON.stringify(request), { cwd: child.outDir, nodeFlags });
  if (result.events !== history.events) throw new Error(`${subject} read ${result.events} events; the history has ${history.events}`);
  if (subject === 'product' && result.runsProjected !== history.runs) {
    throw new Error(`the rebuilt read model has ${String(result.runsProjected)} runs; the history has ${history.runs}`);
  }
  return result;
}

/** The `--cpu-prof` run of the product, summarised for the notes. */
async function profileProduct(context: BenchContext, child: CompiledChild, history: GeneratedHistory, profileDir: string): Promise<string[]> {
  mkdirSync(profileDir, { recursive: true });
  const before = new Set(readdirSync(profileDir));
  context.log(`profiling one more product rebuild (--cpu-prof into ${profileDir})`);
  const result = await measure(child, 'product', history, join(context.tempDir('profile'), 'read-models.sqlite'), ['--cpu-prof', `--cpu-prof-dir=${profileDir}`]);
  const written = readdirSync(profileDir).filter((f) => f.endsWith('.cpuprofile') && !before.has(f));
  if (written.length !== 1) throw new Error(`expected one new .cpuprofile in ${profileDir}, found ${written.length}`);
  const file = join(profileDir, written[0] as string);
  const summary = summariseCpuProfile(file, { fromUs: result.hrtimeStartUs, toUs: result.hrtimeEndUs }, child.outDir, 15);
  const share = (s: number) => `${(s * 100).toFixed(1)}%`;
  return [
    `CPU profile of a product rebuild (${formatNumber(result.events / (result.ms / 1000))} events/s under the profiler): ${file}; ` +
      `${summary.windowed ? 'the rebuild only' : 'the whole process (window not found)'}, ${formatNumber(summary.windowMs)} ms sampled`,
    `profile, self time by function: ${summary.functions.map((f) => `${f.name} ${share(f.share)}`).join('; ')}`,
    `profile, self time by file: ${summary.files.map((f) => `${f.name} ${share(f.share)}`).join('; ')}`,
  ];
}

/** Rebuild: all projections from history against reading and parsing the same events. */
export const rebuildScenario: BenchScenario = {
  name: 'rebuild',
  title: 'Rebuild: all projections from history against reading and parsing the same events',
  run: async (context: BenchContext): Promise<ScenarioResult> => {
    const targetEvents = context.quick ? REBUILD_EVENTS.quick : REBUILD_EVENTS.full;
    const compiled = precompile(context.tempDir('compiled'), [CHILD_SOURCE]);
    const child: CompiledChild = { entry: compiled.compiled(CHILD_SOURCE), outDir: compiled.outDir };
    context.log(`generating a history of ${targetEvents} events`);
    const history = await generateHistory({ path: join(context.tempDir('history'), 'agent-ledger.sqlite'), targetEvents, log: context.log });
    const historyMb = fileSizeMb(history.path);
    context.log(`history: ${history.events} events of ${history.runs} runs, ${historyMb.toFixed(0)} MB, generated in ${history.seconds.toFixed(1)} s`);

    const results: Record<RebuildSubject, RebuildChildResult[]> = { product: [], 'baseline-readAll': [], 'baseline-raw': [] };
    let readModelMb = 0;
    for (let round = 0; round < context.rounds; round++) {
      // The order rotates, so that no subject always reads a cold or a warm page cache.
      const order = SUBJECTS.map((_, i) => SUBJECTS[(i + round) % SUBJECTS.length] as RebuildSubject);
      for (const subject of order) {
        const readModelPath = join(context.tempDir(`round${round}`), 'read-models.sqlite');
        const result = await measure(child, subject, history, readModelPath);
        results[subject].push(result);
        if (subject === 'product') readModelMb = fileSizeMb(readModelPath);
        context.log(
          `round ${round + 1}/${context.rounds}: ${subject}: ${formatNumber(result.events / (result.ms / 1000))} events/s, ` +
            `peak RSS ${result.peakRssMb.toFixed(0)} MB (${result.rssAtStartMb.toFixed(0)} MB at start)`,
        );
      }
    }

    const eventsPerSecond = (subject: RebuildSubject) => results[subject].map((r) => r.events / (r.ms / 1000));
    const measurements: Measurement[] = [];
    for (const subject of SUBJECTS) {
      const variant = { events: history.events, work: WORK[subject] };
      const who = subject === 'product' ? 'product' : 'baseline';
      measurements.push(
        { subject: who, variant, metric: 'events/s', unit: 'events/s', better: 'higher', samples: eventsPerSecond(subject) },
        { subject: who, variant, metric: 'peak RSS', unit: 'MB', better: 'lower', samples: results[subject].map((r) => r.peakRssMb) },
        { subject: who, variant, metric: 'RSS at start', unit: 'MB', better: 'lower', samples: results[subject].map((r) => r.rssAtStartMb) },
        { subject: who, variant, metric: 'CPU per 1,000 events', unit: 'ms', better: 'lower', samples: results[subject].map((r) => (r.cpuMs * 1000) / r.events) },
      );
    }
    const cpuPerEvent = (subject: RebuildSubject) => results[subject].map((r) => r.cpuMs / r.events);
    const ratios: Ratio[] = [
      { name: 'product/baseline rebuild CPU per event', variant: { events: history.events, baseline: 'readAll' }, samples: ratioSamples(cpuPerEvent('product'), cpuPerEvent('baseline-readAll')), better: 'lower' },
      { name: 'product/baseline rebuild events/s', variant: { events: history.events, baseline: 'readAll' }, samples: ratioSamples(eventsPerSecond('product'), eventsPerSecond('baseline-readAll')) },
      { name: 'product/baseline rebuild events/s', variant: { events: history.events, baseline: 'raw SELECT' }, samples: ratioSamples(eventsPerSecond('product'), eventsPerSecond('baseline-raw')) },
    ];

    const quickNote = context.quick ? `; QUICK: ${formatNumber(history.events)} events, not 1M` : '';
    const productRate = median(eventsPerSecond('product'));
    const productPeak = median(results.product.map((r) => r.peakRssMb));
    const productStart = median(results.product.map((r) => r.rssAtStartMb));
    const targets: TargetCheck[] = [
      {
        target: 'rebuild >= 100,000 events/s (1M events)',
        measured: `${formatNumber(productRate)} events/s (median of ${context.rounds} round(s)${quickNote})`,
        met: productRate >= REBUILD_TARGET_EVENTS_PER_SECOND,
      },
      {
        target: 'peak RSS < 300 MB (1M events)',
        measured: `${formatNumber(productPeak)} MB peak, of which ${formatNumber(productStart)} MB at start (median of ${context.rounds} round(s)${quickNote})`,
        met: productPeak < REBUILD_TARGET_PEAK_RSS_MB,
      },
    ];

    const outcomes = Object.entries(history.runsByOutcome)
      .sort((a, b) => b[1] - a[1])
      .map(([outcome, n]) => `${outcome} ${n}`)
      .join(', ');
    const applied = results.product[0]?.eventsApplied ?? 0;
    const rate = (value: number | null) => (value === null ? 'n/a' : formatNumber(value));
    const tenths = results.product.map((r) => `${rate(r.firstTenthEventsPerSecond)} -> ${rate(r.lastTenthEventsPerSecond)}`).join(', ');
    const notes = [
      `history: ${formatNumber(history.events)} events (${formatNumber(history.runEvents)} run, ${formatNumber(history.auditEvents)} audit) of ${formatNumber(history.runs)} runs ` +
        `in ${formatNumber(history.appends)} appends (one per decision, ~16 runs interleaved), ${formatNumber(historyMb)} MB on disk, generated in ${history.seconds.toFixed(0)} s (not measured); runs: ${outcomes}`,
      `product: ProjectionRebuilder.rebuild() of all projections (default batch 5,000 events) over the sources the CLI names, into a fresh read-model file per round ` +
        `(${formatNumber(readModelMb)} MB after the rebuild); ${formatNumber(applied)} applications (events × projections that take them); ` +
        `events/s over the first -> the last tenth of the history, round by round: ${tenths}`,
      'each subject runs in a child process of its own, under plain node, on the sources transpiled once ahead (ts.transpileModule, as ts-node ' +
        'does, but no compiler left in memory); the RSS at start is the floor of the loaded modules and the open store, the same for all three',
    ];
    const profileDir = process.env['BENCH_REBUILD_CPU_PROFILE'];
    if (profileDir !== undefined && profileDir !== '') notes.push(...(await profileProduct(context, child, history, profileDir)));
    return { measurements, ratios, targets, notes };
  },
};
