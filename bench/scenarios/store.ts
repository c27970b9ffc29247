import type { Durability } from '@agent-ledger/event-store';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import type { BenchContext, BenchScenario, Measurement, Ratio, ScenarioResult, TargetCheck } from '../support/bench-scenario';
import { formatNumber } from '../support/report';
import { median, ratioSamples } from '../support/stats';
import { BENCH_EVENT_TYPES, BENCH_PAYLOAD_BYTES } from './store/bench-events';
import type { AppendAndReadStore, BenchStore, StoreKind } from './store/bench-store';
import type { LoadedPeer } from './store/peer-store';
import { DEFAULT_PEER_DIRECTORY, loadPeer, PeerConsoleCapture, peerConnectionKind, peerEventStoreKind } from './store/peer-store';
import { productStoreKind } from './store/product-store';
import type { ContentionCheck, ContentionOptions, ReadKind } from './store/workloads';
import { AppendDriver, checkContention, ErrorTally, loadReadDataSet, probeStaleAppend, raceOnOneStream, ReadMeter, splitIntoSlices } from './store/workloads';

/**
 * Store: append and read throughput of the product's embedded store
 * (`SqliteEventStore`) against a peer, Emmett's SQLite event store
 * (`@event-driven-io/emmett-sqlite`, a dependency of the bench only, in
 * `bench/peer`), on the same events; and what each does when 8 and 64
 * appenders race on one stream with optimistic concurrency. Method and
 * figures: docs/benchmarks.md.
 */

/** Sizes of one run of the scenario. */
interface StoreSizes {
  /**
   * Single-event appends per configuration (durability × appenders), split evenly over the
   * appenders. Fewer with powerLoss: every commit waits for an fsync there.
   */
  readonly appendsPerConfiguration: Readonly<Record<Durability, number>>;
  /** The appends of a configuration run in this many slices, the product's and the peer's interleaved. */
  readonly appendSlices: number;
  readonly readStreams: number;
  readonly readEventsPerStream: number;
  /** How many times the reads go over the data set in one round. */
  readonly readPasses: number;
  /** One race on one stream per entry. */
  readonly races: readonly Omit<ContentionOptions, 'stallMs' | 'deadlineMs'>[];
  /**
   * Appenders of the races of the peer's documented event store object, run in the first round
   * only: its calls wait up to 1 s each for a lock in node-sqlite3's 4 worker threads, so its
   * 64-appender race takes about 16 s whatever happens, and its outcome does not vary.
   */
  readonly documentedStoreRaces: readonly number[];
  readonly stallMs: number;
  readonly deadlineMs: number;
}

const FULL_SIZES: StoreSizes = {
  appendsPerConfiguration: { processCrash: 2048, powerLoss: 512 },
  appendSlices: 4,
  readStreams: 64,
  readEventsPerStream: 200,
  readPasses: 6,
  races: [
    { appenders: 8, appendsPerAppender: 25 },
    { appenders: 64, appendsPerAppender: 5 },
  ],
  documentedStoreRaces: [8, 64],
  stallMs: 2000,
  deadlineMs: 30_000,
};

const QUICK_SIZES: StoreSizes = {
  appendsPerConfiguration: { processCrash: 64, powerLoss: 64 },
  appendSlices: 2,
  readStreams: 8,
  readEventsPerStream: 10,
  readPasses: 2,
  races: [
    { appenders: 8, appendsPerAppender: 2 },
    { appenders: 64, appendsPerAppender: 1 },
  ],
  documentedStoreRaces: [8],
  stallMs: 300,
  deadlineMs: 5_000,
};

const DURABILITIES: readonly Durability[] = ['processCrash', 'powerLoss'];
const APPENDERS: readonly number[] = [1, 8, 64];
const READS: readonly ReadKind[] = ['stream reads', 'readAll'];

/** The ratio names of the scenario (kept exactly: the chart and docs/benchmarks.md refer to them). */
export const STORE_RATIO_NAMES = { appends: 'product/peer appends/s', reads: 'product/peer reads/s' } as const;

/** The note that stands in for the peer when it cannot be loaded starts with this. */
export const PEER_NOT_INSTALLED = 'peer not installed';

type Variant = Readonly<Record<string, string | number | boolean>>;

/** Samples of every measurement, in the order they were first recorded (the table's order). */
class SampleBook {
  private readonly entries = new Map<string, { meta: Omit<Measurement, 'samples'>; samples: number[] }>();

  add(meta: Omit<Measurement, 'samples'>, value: number): void {
    const key = this.key(meta.subject, meta.variant, meta.metric);
    const entry = this.entries.get(key) ?? { meta, samples: [] };
    entry.samples.push(value);
    this.entries.set(key, entry);
  }

  samples(subject: Measurement['subject'], variant: Variant, metric: string): number[] {
    return this.entries.get(this.key(subject, variant, metric))?.samples ?? [];
  }

  measurements(): Measurement[] {
    return [...this.entries.values()].map(({ meta, samples }) => ({ ...meta, samples }));
  }

  private key(subject: string, variant: Variant, metric: string): string {
    return `${subject}|${JSON.stringify(variant)}|${metric}`;
  }
}

/** Options of {@link createStoreScenario}. */
export interface StoreScenarioOptions {
  /** Where the peer's package.json and node_modules are (default `bench/peer`); the tests point it at an empty folder. */
  readonly peerDirectory?: string;
}

/** The store scenario, with the peer looked for in `options.peerDirectory`. */
export function createStoreScenario(options: StoreScenarioOptions = {}): BenchScenario {
  return {
    name: 'store',
    title: "Store: the embedded store against Emmett's SQLite event store",
    run: (context) => runStoreScenario(context, options.peerDirectory ?? DEFAULT_PEER_DIRECTORY),
  };
}

/** Store: the embedded store against Emmett's SQLite event store (peer in `bench/peer`). */
export const storeScenario: BenchScenario = createStoreScenario();

async function runStoreScenario(context: BenchContext, peerDirectory: string): Promise<ScenarioResult> {
  const sizes = context.quick ? QUICK_SIZES : FULL_SIZES;
  const load = loadPeer(peerDirectory);
  const peer: LoadedPeer | null = load.loaded ? load.peer : null;
  const notes: string[] = [];
  if (!load.loaded) {
    notes.push(`${load.reason}: measuring the product alone, no ratios and no comparison targets`);
    context.log(load.reason);
  }
  const capture = new PeerConsoleCapture();
  /** Runs a phase of `kind`, with the peer's console.log captured. */
  const phase = <T>(kind: StoreKind<AppendAndReadStore>, body: () => Promise<T>): Promise<T> =>
    kind.subject === 'peer' ? capture.during(body) : body();
  const peerOnOneConnection = peer === null ? null : peerConnectionKind(peer);
  const throughputKinds: StoreKind<BenchStore>[] = peerOnOneConnection === null ? [productStoreKind] : [productStoreKind, peerOnOneConnection];
  const raceKinds: StoreKind[] = peer === null ? [productStoreKind] : [...throughputKinds, peerEventStoreKind(peer)];
  const book = new SampleBook();
  const throughputTrouble = new Map<string, ErrorTally>();
  const readAnomalies = new Map<string, number>();
  const raceChecks = new Map<string, ContentionCheck[]>();

  for (let round = 0; round < context.rounds; round += 1) {
    // Alternate who goes first, so that a drift of the machine's load favours neither.
    const ordered = <K>(kinds: readonly K[]): K[] => (round % 2 === 0 ? [...kinds] : [...kinds].reverse());

    for (const durability of DURABILITIES) {
      for (const appenders of APPENDERS) {
        const perAppender = Math.max(1, Math.floor(sizes.appendsPerConfiguration[durability] / appenders));
        // Both stores open on fresh files; their slices interleave, who goes first alternating.
        const runs: { kind: StoreKind<BenchStore>; path: string; store: BenchStore; driver: AppendDriver }[] = [];
        let failure: unknown = null;
        try {
          for (const kind of throughputKinds) {
            const path = join(context.tempDir(`${kind.subject}-${durability}-${appenders}`), 'store.sqlite');
            const store = await phase(kind, () => kind.open(path, durability));
            runs.push({ kind, path, store, driver: new AppendDriver(store, 'append', appenders) });
          }
          const slices = splitIntoSlices(perAppender, sizes.appendSlices);
          for (let s = 0; s < slices.length; s += 1) {
            const order = (round + s) % 2 === 0 ? runs : [...runs].reverse();
            for (const { kind, driver } of order) await phase(kind, () => driver.slice(slices[s] as number));
          }
        } catch (error) {
          failure = error;
        }
        const closeErrors: unknown[] = [];
        for (const { kind, store } of runs) {
          try {
            await phase(kind, () => store.close());
          } catch (error) {
            closeErrors.push(error);
          }
        }
        if (failure !== null) throw failure;
        if (closeErrors.length > 0) throw new AggregateError(closeErrors, `closing the stores of the ${durability} ${appenders}-appender run failed`);
        for (const { kind, path, store, driver } of runs) {
          const commits = store.commitStats();
          // Not timed: every acknowledged append must be in the file once it is closed.
          let found = 0;
          for (let a = 0; a < appenders; a += 1) found += (await phase(kind, () => kind.readBack(path, `append-${a}`))).events.length;
          const variant = { durability, appenders };
          book.add({ subject: kind.subject, variant, metric: 'appends/s', unit: 'appends/s', better: 'higher' }, driver.appendsPerSecond);
          book.add({ subject: kind.subject, variant, metric: 'appends per commit', unit: 'appends', better: 'higher' }, driver.acknowledged / Math.max(1, commits.commits));
          if (commits.acknowledgedBeforeCommit !== null) {
            book.add({ subject: kind.subject, variant, metric: 'acknowledged before their commit', unit: '%', better: 'lower' }, (100 * commits.acknowledgedBeforeCommit) / Math.max(1, driver.acknowledged));
          }
          const expected = perAppender * appenders;
          if (driver.errors.total > 0 || driver.conflicts > 0 || driver.acknowledged !== expected || found !== driver.acknowledged) {
            const what = `${kind.subject} (${kind.api}) ${durability} ${appenders} appenders`;
            const tally = throughputTrouble.get(what) ?? new ErrorTally();
            tally.merge(driver.errors);
            if (driver.conflicts > 0) tally.add(new Error(`${driver.conflicts} unexpected conflict(s)`), 'append');
            if (driver.acknowledged !== expected) tally.add(new Error(`${driver.acknowledged} of ${expected} appends acknowledged`), 'append');
            if (found !== driver.acknowledged) tally.add(new Error(`${found} events in the file after closing for ${driver.acknowledged} acknowledged appends`), 'check');
            throughputTrouble.set(what, tally);
          }
        }
      }
      context.log(`round ${round + 1}/${context.rounds}: appends, ${durability}, done`);
    }

    // Both data sets written first (not timed); then the passes of both stores interleave.
    const readers: { kind: StoreKind<BenchStore>; store: BenchStore; meters: ReadMeter[] }[] = [];
    let readFailure: unknown = null;
    try {
      for (const kind of throughputKinds) {
        const store = await phase(kind, () => kind.open(join(context.tempDir(`${kind.subject}-reads`), 'store.sqlite'), 'processCrash'));
        const reader = { kind, store, meters: [] as ReadMeter[] };
        readers.push(reader); // closed below even if loading fails
        const dataSet = await phase(kind, () => loadReadDataSet(store, 'read', sizes.readStreams, sizes.readEventsPerStream));
        reader.meters.push(...READS.map((read) => new ReadMeter(store, dataSet, read)));
      }
      for (let pass = 0; pass < sizes.readPasses; pass += 1) {
        for (let r = 0; r < READS.length; r += 1) {
          const order = (round + pass) % 2 === 0 ? readers : [...readers].reverse();
          for (const { kind, meters } of order) await phase(kind, () => (meters[r] as ReadMeter).pass());
        }
      }
    } catch (error) {
      readFailure = error;
    }
    const readCloseErrors: unknown[] = [];
    for (const { kind, store } of readers) {
      try {
        await phase(kind, () => store.close());
      } catch (error) {
        readCloseErrors.push(error);
      }
    }
    if (readFailure !== null) throw readFailure;
    if (readCloseErrors.length > 0) throw new AggregateError(readCloseErrors, 'closing the stores of the reads failed');
    for (const { kind, meters } of readers) {
      for (const meter of meters) {
        book.add({ subject: kind.subject, variant: { read: meter.read }, metric: 'reads/s', unit: 'events/s', better: 'higher' }, meter.eventsPerSecond);
        const key = `${kind.subject} (${kind.api}) ${meter.read}`;
        readAnomalies.set(key, (readAnomalies.get(key) ?? 0) + meter.anomalies);
      }
    }
    context.log(`round ${round + 1}/${context.rounds}: reads done`);

    for (const race of sizes.races) {
      const options: ContentionOptions = { ...race, stallMs: sizes.stallMs, deadlineMs: sizes.deadlineMs };
      const racing = raceKinds.filter((k) => k.api !== 'getSQLiteEventStore' || (round === 0 && sizes.documentedStoreRaces.includes(race.appenders)));
      for (const kind of ordered(racing)) {
        const path = join(context.tempDir(`${kind.subject}-race-${race.appenders}`), 'store.sqlite');
        const streamName = 'shared-1';
        const check = await phase(kind, async () => {
          const store = await kind.open(path, 'processCrash');
          let run;
          try {
            run = await raceOnOneStream(store, streamName, options);
          } finally {
            await store.close();
          }
          return checkContention(run, await kind.readBack(path, streamName), options);
        });
        const variant = { appenders: race.appenders, api: kind.api };
        const counts: [string, string, Measurement['better'], number][] = [
          ['acknowledged appends', 'appends', 'higher', check.acknowledged],
          ['conflicts', 'conflicts', 'lower', check.conflicts],
          ['errors other than conflicts', 'errors', 'lower', check.otherErrors],
          ['lost or duplicated events', 'events', 'lower', check.lost + check.duplicated + check.refusedButWritten],
          ['version gaps or repeats', 'events', 'lower', check.versionAnomalies],
        ];
        for (const [metric, unit, better, value] of counts) book.add({ subject: kind.subject, variant, metric, unit, better }, value);
        const key = `${kind.subject}|${kind.api}|${race.appenders}`;
        raceChecks.set(key, [...(raceChecks.get(key) ?? []), check]);
      }
    }
    context.log(`round ${round + 1}/${context.rounds}: races on one stream done`);
  }

  const ratios: Ratio[] = [];
  const targets: TargetCheck[] = [];
  if (peer !== null) {
    for (const durability of DURABILITIES) {
      for (const appenders of APPENDERS) {
        const variant = { durability, appenders };
        const product = book.samples('product', variant, 'appends/s');
        const peerSamples = book.samples('peer', variant, 'appends/s');
        const samples = ratioSamples(product, peerSamples);
        ratios.push({ name: STORE_RATIO_NAMES.appends, variant, samples });
        const target = ratioTarget(`embedded store appends/s >= peer (durability=${durability}, appenders=${appenders})`, samples, product, peerSamples, 'appends/s');
        const early = median(book.samples('peer', variant, 'acknowledged before their commit'));
        const perCommit = median(book.samples('peer', variant, 'appends per commit'));
        targets.push(
          early > 0
            ? { ...target, measured: `${target.measured}; the peer: ${formatNumber(perCommit)} appends per commit, ${formatNumber(early)}% acknowledged before their commit` }
            : target,
        );
      }
    }
    for (const read of READS) {
      const product = book.samples('product', { read }, 'reads/s');
      const peerSamples = book.samples('peer', { read }, 'reads/s');
      const samples = ratioSamples(product, peerSamples);
      ratios.push({ name: STORE_RATIO_NAMES.reads, variant: { read }, samples });
      targets.push(ratioTarget(`reads/s >= peer (${read})`, samples, product, peerSamples, 'events/s'));
    }
  }
  targets.push(correctnessTarget(sizes, raceChecks, peer !== null));

  notes.push(...(await settingsNotes(context, peer, throughputKinds, raceKinds, phase)));
  notes.push(
    `method: per configuration ${sizes.appendsPerConfiguration.processCrash} (processCrash) or ${sizes.appendsPerConfiguration.powerLoss} (powerLoss) single-event appends of ~${BENCH_PAYLOAD_BYTES}-byte JSON events (types ${BENCH_EVENT_TYPES.join(', ')}), ` +
      'split over the appenders, each appender on its own stream with the exact expected version its previous append returned; ' +
      `product and peer on fresh files, their work cut in ${sizes.appendSlices} slices run alternately (who goes first alternating), so that both meet the same moments of the machine; ` +
      'appends/s = acknowledged appends / summed wall time of the slices; ' +
      'after each run the file is reopened and every acknowledged event counted (a shortfall would be noted here). ' +
      "appends per commit = acknowledged appends / write transactions committed (the product's group-commit transactions; the peer's COMMITs, counted by a watch on its driver's Database#run); " +
      "acknowledged before their commit (peer) = share of acknowledged appends whose promise resolved while the peer's connection still had a write transaction open " +
      '(the product settles an append after the COMMIT of its batch, by construction)',
    `reads: ${sizes.readStreams} streams × ${sizes.readEventsPerStream} events (written in batches of 50, streams interleaved), ${sizes.readPasses} passes of each read per round, the product's and the peer's passes interleaved, warm cache; ` +
      'stream reads = each stream read whole, one after another; readAll = the whole log in global order: the product\'s readAll (pages of 256), ' +
      "the peer's readMessagesBatch in pages of 256 (its event store object has no read of the whole log; its consumers page through it this way)",
    `races: N appenders on ONE stream, each: read the version, append a new event with it, on a conflict read and decide again, until ${sizes.races
      .map((r) => `${r.appendsPerAppender} acknowledged appends each (${r.appenders} appenders)`)
      .join(', ')}; the races of the peer's getSQLiteEventStore object (${sizes.documentedStoreRaces.join(' and ')} appenders) run in the first round only ` +
      "(each of its calls may wait 1 s for a lock in node-sqlite3's 4 worker threads: 16 s for 64 appenders, every time); " +
      `an appender gives up when no append at all was acknowledged for ${sizes.stallMs} ms (or after ${sizes.deadlineMs / 1000} s); ` +
      'then the stream is read back through a fresh connection after closing and checked: every acknowledged event there once, at the version acknowledged, versions 1..n, no refused event written',
  );
  for (const [what, tally] of throughputTrouble) notes.push(`appends, ${what}: ${tally.describe()}`);
  for (const [what, n] of readAnomalies) if (n > 0) notes.push(`reads, ${what}: ${n} event(s) missing, out of order or not as written`);
  notes.push(...raceNotes(raceChecks, sizes));
  notes.push(await staleAppendNote(context, raceKinds, phase));
  const logged = capture.summary();
  if (logged.total > 0) {
    notes.push(
      `the peer wrote ${logged.total} line(s) to console.log (it logs every error it rethrows from a transaction), captured and counted here instead of printed: ` +
        [...logged.distinct]
          .sort((a, b) => b[1] - a[1])
          .slice(0, 4)
          .map(([line, n]) => `${n} × ${line}`)
          .join('; '),
    );
  }
  return { measurements: book.measurements(), ratios, targets, notes };
}

function ratioTarget(target: string, ratio: readonly number[], product: readonly number[], peer: readonly number[], unit: string): TargetCheck {
  const m = median(ratio);
  return {
    target,
    measured: `median ratio ${formatNumber(m)} (product ${formatNumber(median(product))} ${unit}, peer ${formatNumber(median(peer))} ${unit})`,
    met: m >= 1,
  };
}

const isCorrect = (c: ContentionCheck) =>
  c.acknowledged === c.target && c.lost === 0 && c.duplicated === 0 && c.refusedButWritten === 0 && c.failedButWritten === 0 && c.versionAnomalies === 0 && c.otherErrors === 0;

function correctnessTarget(sizes: StoreSizes, raceChecks: ReadonlyMap<string, readonly ContentionCheck[]>, peerMeasured: boolean): TargetCheck {
  const productChecks = sizes.races.flatMap((r) => raceChecks.get(`product|${productStoreKind.api}|${r.appenders}`) ?? []);
  const met = productChecks.length > 0 && productChecks.every(isCorrect);
  const product = sizes.races
    .map((r) => {
      const checks = raceChecks.get(`product|${productStoreKind.api}|${r.appenders}`) ?? [];
      const worst = (f: (c: ContentionCheck) => number) => Math.max(...checks.map(f));
      return (
        `${r.appenders} appenders: ${Math.min(...checks.map((c) => c.acknowledged))}/${r.appenders * r.appendsPerAppender} acknowledged, ` +
        `${worst((c) => c.lost + c.duplicated + c.refusedButWritten)} lost or duplicated, ${worst((c) => c.versionAnomalies)} version gaps, ${worst((c) => c.otherErrors)} errors`
      );
    })
    .join('; ');
  const peerText = peerMeasured
    ? `; peer: ${sizes.races
        .flatMap((r) =>
          ['one connection', 'getSQLiteEventStore'].map((api) => {
            const checks = raceChecks.get(`peer|${api}|${r.appenders}`) ?? [];
            if (checks.length === 0) return `${api}, ${r.appenders} appenders: not run`;
            const worst = checks.reduce((a, c) => (c.acknowledged < a.acknowledged ? c : a));
            return `${api}, ${r.appenders} appenders: ${checks.every(isCorrect) ? 'correct' : `NOT correct (${worst.acknowledged}/${worst.target} acknowledged, ${worst.otherErrors} errors)`}`;
          }),
        )
        .join('; ')} (see the notes)`
    : '; peer not measured';
  return { target: 'correct under 8 and 64 concurrent appenders', measured: `product (worst round) ${product}${peerText}`, met };
}

/** One note per (store, appenders) race: what happened in the last round, plus the spread over rounds. */
function raceNotes(raceChecks: ReadonlyMap<string, readonly ContentionCheck[]>, sizes: StoreSizes): string[] {
  const notes: string[] = [];
  for (const [key, checks] of raceChecks) {
    const [subject, api, appenders] = key.split('|');
    const last = checks[checks.length - 1];
    if (last === undefined) continue;
    const acknowledged = checks.map((c) => c.acknowledged);
    const parts = [
      `${last.acknowledged} of ${last.target} appends acknowledged` +
        (checks.length > 1 ? ` (rounds: ${acknowledged.join(', ')})` : '') +
        (last.gaveUp > 0 ? `, then ${last.gaveUp} appender(s) gave up (no append acknowledged for ${sizes.stallMs} ms, or the deadline)` : '') +
        ` in ${last.seconds.toFixed(1)} s`,
      `${last.conflicts} conflicts`,
      `errors other than conflicts: ${last.errors.describe()}`,
      `stream read back: ${last.eventsInStream} events, reported version ${last.reportedVersion}` +
        (last.streamCounter !== undefined ? `, the store's own stream counter (emt_streams.stream_position) ${last.streamCounter}` : ''),
      `lost ${last.lost}, duplicated ${last.duplicated}, refused but written ${last.refusedButWritten}, failed but written ${last.failedButWritten}, version gaps or repeats ${last.versionAnomalies}`,
    ];
    if (subject === 'peer' && last.streamCounter !== undefined && last.streamCounter > last.eventsInStream) {
      parts.push(
        `its stream counter is ${last.streamCounter - last.eventsInStream} ahead of its events (from its code: its appendToStream bumps emt_streams.stream_position before comparing it with the ` +
          'expected version and, on a mismatch, returns "conflict" without undoing that, and the transaction commits), so after the first conflict every append with the ' +
          "stream's true version is refused: the stream is stuck for optimistic appends",
      );
    }
    const errorsText = last.errors.describe();
    if (subject === 'peer' && api === 'one connection' && last.otherErrors > 0) {
      parts.push(
        'from its code: concurrent calls on one peer connection share one transaction (its withTransaction only counts nesting: BEGIN by the first caller in, COMMIT by the one that leaves ' +
          'when the count is back to 1), so callers COMMIT or ROLLBACK transactions that others opened (the "no transaction is active" errors), and an append can be acknowledged before the COMMIT that writes it',
      );
    }
    if (subject === 'peer' && api === 'getSQLiteEventStore' && errorsText.includes('SQLITE_MISUSE')) {
      parts.push('from its code: concurrent calls share the connection that is open, and each call closes it when it ends, under the calls still running on it (SQLITE_MISUSE)');
    }
    notes.push(`race, ${subject} (${api}), ${appenders} appenders on one stream, last round: ${parts.join('; ')}`);
  }
  return notes;
}

/** One appender, no concurrency: what each store does after refusing one stale append. */
async function staleAppendNote(
  context: BenchContext,
  kinds: readonly StoreKind[],
  phase: <T>(kind: StoreKind<AppendAndReadStore>, body: () => Promise<T>) => Promise<T>,
): Promise<string> {
  const seen: string[] = [];
  for (const kind of kinds) {
    const path = join(context.tempDir(`${kind.subject}-stale`), 'store.sqlite');
    const text = await phase(kind, async () => {
      const store = await kind.open(path, 'processCrash');
      try {
        const probe = await probeStaleAppend(store, 'stale-1');
        return `${probe.stale}, then ${probe.afterwards.join(', ')}`;
      } catch (error) {
        return `failed: ${error instanceof Error ? error.message : String(error)}`;
      } finally {
        await store.close();
      }
    });
    seen.push(`${kind.subject} (${kind.api}): ${text}`);
  }
  return (
    'one appender, no concurrency: 3 appends, one append with a stale expected version (right: conflict), then 3 appends each at the version just read ' +
    `(right: appended): ${seen.join('; ')}`
  );
}

async function settingsNotes(
  context: BenchContext,
  peer: LoadedPeer | null,
  throughputKinds: readonly StoreKind<BenchStore>[],
  raceKinds: readonly StoreKind[],
  phase: <T>(kind: StoreKind<AppendAndReadStore>, body: () => Promise<T>) => Promise<T>,
): Promise<string[]> {
  const notes: string[] = [];
  const probe = new Database(':memory:');
  let productSqlite: string;
  try {
    productSqlite = String((probe.prepare('SELECT sqlite_version() AS v').get() as { v: unknown }).v);
  } finally {
    probe.close();
  }
  const settings: string[] = [];
  for (const kind of [...throughputKinds, ...raceKinds.filter((k) => !throughputKinds.includes(k as StoreKind<BenchStore>))]) {
    const durabilities = kind.api === 'getSQLiteEventStore' ? (['processCrash'] as const) : DURABILITIES;
    for (const durability of durabilities) {
      const path = join(context.tempDir(`${kind.subject}-settings`), 'store.sqlite');
      const text = await phase(kind, () => kind.describeSettings(path, durability));
      settings.push(`${kind.subject} (${kind.api})${kind.api === 'getSQLiteEventStore' ? '' : `, ${durability}`}: ${text}`);
    }
  }
  notes.push(`settings in force, read back from SQLite: ${settings.join('; ')}`);
  notes.push(
    `product: @agent-ledger/event-store SqliteEventStore on better-sqlite3 (SQLite ${productSqlite})` +
      (peer === null
        ? ''
        : `; peer: @event-driven-io/emmett-sqlite ${peer.version} on node-sqlite3 (SQLite ${peer.sqliteVersion}). ` +
          'emmett-sqlite itself only sets journal_mode=WAL on its connections; synchronous is left at SQLite\'s default (FULL) and getSQLiteEventStore has no option for it. ' +
          "For the throughput runs the peer is driven through its exported functions (sqliteConnection, appendToStream, readStream, readMessagesBatch) on one connection, " +
          'where the bench sets synchronous=NORMAL (processCrash) or FULL (powerLoss) like the product: the same code its event store object runs, minus a new connection per call. ' +
          'The peer makes its own message ids; it reads versions by reading the whole stream (its API has no shorter read), the product by reading the last event'),
  );
  return notes;
}
