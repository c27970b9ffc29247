import { performance } from 'node:perf_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { BenchEvent } from './bench-events';
import { benchEvent, isBenchEventData } from './bench-events';
import type { AppendAndReadStore, AppendOutcome, BenchStore, ReadBackEvent, ReadBackSnapshot, StreamSnapshot } from './bench-store';

/**
 * The three workloads of the store scenario, written once against
 * {@link AppendAndReadStore} so that the product and the peer run the same code
 * on the same events: single-event appends by concurrent appenders, reads of
 * every stream and of the whole log, and many appenders racing on one stream.
 */

/** Errors other than conflicts, counted by kind (code and message), never dropped. */
export class ErrorTally {
  private readonly counts = new Map<string, number>();

  /** Counts `error`, thrown by the store during `operation` (`append`, `read`). */
  add(error: unknown, operation: string): void {
    const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
    const message = error instanceof Error ? error.message : String(error);
    const key = `${operation}: ${typeof code === 'string' && !message.includes(code) ? `${code}: ` : ''}${message.split('\n')[0]?.slice(0, 140) ?? ''}`;
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
  }

  /** Adds the counts of another tally. */
  merge(other: ErrorTally): void {
    for (const [key, n] of other.counts) this.counts.set(key, (this.counts.get(key) ?? 0) + n);
  }

  get total(): number {
    let total = 0;
    for (const n of this.counts.values()) total += n;
    return total;
  }

  /** `12 × append: SQLITE_MISUSE: ...; 3 × ...`, most frequent first; `none` when empty. */
  describe(limit = 4): string {
    if (this.counts.size === 0) return 'none';
    const sorted = [...this.counts].sort((a, b) => b[1] - a[1]);
    const shown = sorted.slice(0, limit).map(([key, n]) => `${n} × ${key}`);
    if (sorted.length > limit) shown.push(`${sorted.length - limit} other kind(s)`);
    return shown.join('; ');
  }
}

// --- appends -----------------------------------------------------------------

/**
 * `appenders` concurrent appenders, each on its own stream `<category>-<n>`, each appending
 * single events one after another with the exact expected version (the version its previous
 * append returned). The work comes in slices, so that the scenario can interleave the slices
 * of the product and of the peer and both meet the same moments of a shared machine (a burst
 * of another process's disk writes hits both); the versions carry over from slice to slice.
 * appends/s counts acknowledged appends over the summed wall time of the slices; the events
 * of a slice are built before its clock starts.
 */
export class AppendDriver {
  private readonly versions: number[];
  private readonly nextAttempt: number[];
  private acknowledgedSoFar = 0;
  private conflictsSoFar = 0;
  private secondsSoFar = 0;
  /** Errors other than conflicts (none expected). */
  readonly errors = new ErrorTally();

  constructor(
    private readonly store: AppendAndReadStore,
    private readonly category: string,
    private readonly appenders: number,
  ) {
    this.versions = Array.from({ length: appenders }, () => 0);
    this.nextAttempt = Array.from({ length: appenders }, () => 0);
  }

  /** Acknowledged appends over the summed wall time of the slices run so far. */
  get appendsPerSecond(): number {
    return this.acknowledgedSoFar / this.secondsSoFar;
  }

  get acknowledged(): number {
    return this.acknowledgedSoFar;
  }

  /** Conflicts on an appender's own stream: none expected (each appender is its stream's only writer). */
  get conflicts(): number {
    return this.conflictsSoFar;
  }

  /** Runs one slice: each appender appends `appendsPerAppender` more events. */
  async slice(appendsPerAppender: number): Promise<void> {
    const events: BenchEvent[][] = this.versions.map((_, a) =>
      Array.from({ length: appendsPerAppender }, (_, i) => benchEvent(a, (this.nextAttempt[a] as number) + i)),
    );
    const started = performance.now();
    await Promise.all(events.map((own, a) => this.appendAll(a, own)));
    this.secondsSoFar += (performance.now() - started) / 1000;
  }

  private async appendAll(appender: number, own: readonly BenchEvent[]): Promise<void> {
    const streamName = `${this.category}-${appender}`;
    let attempts = 0;
    for (let i = 0; i < own.length && attempts < own.length * 2 + 10; attempts += 1) {
      try {
        const outcome = await this.store.append(streamName, [own[i] as BenchEvent], this.versions[appender] as number);
        if (outcome.kind === 'appended') {
          this.versions[appender] = outcome.version;
          this.acknowledgedSoFar += 1;
          i += 1;
          continue;
        }
        this.conflictsSoFar += 1;
      } catch (error) {
        this.errors.add(error, 'append');
      }
      // Unexpected on a stream of one writer: learn the version again and go on.
      try {
        this.versions[appender] = await this.store.readVersion(streamName);
      } catch (error) {
        this.errors.add(error, 'read');
      }
    }
    this.nextAttempt[appender] = (this.nextAttempt[appender] as number) + own.length;
  }
}

/** Splits `total` into at most `parts` near-equal positive counts. */
export function splitIntoSlices(total: number, parts: number): number[] {
  const slices = Math.max(1, Math.min(parts, total));
  return Array.from({ length: slices }, (_, i) => Math.floor((total * (i + 1)) / slices) - Math.floor((total * i) / slices));
}

// --- reads -------------------------------------------------------------------

/** The streams of a read data set. */
export interface ReadDataSet {
  readonly streamNames: readonly string[];
  readonly eventsPerStream: number;
  readonly totalEvents: number;
}

/**
 * Writes the data set the reads measure: `streams` streams of `eventsPerStream` events, appended
 * in batches of `batchSize` taken from each stream in turn, so that the global order interleaves
 * the streams. Not timed.
 */
export async function loadReadDataSet(store: AppendAndReadStore, category: string, streams: number, eventsPerStream: number, batchSize = 50): Promise<ReadDataSet> {
  const streamNames = Array.from({ length: streams }, (_, s) => `${category}-${s}`);
  const versions = streamNames.map(() => 0);
  for (let from = 0; from < eventsPerStream; from += batchSize) {
    for (let s = 0; s < streams; s += 1) {
      const batch = Array.from({ length: Math.min(batchSize, eventsPerStream - from) }, (_, i) => benchEvent(s, from + i));
      const outcome = await store.append(streamNames[s] as string, batch, versions[s] as number);
      if (outcome.kind !== 'appended') throw new Error(`loading the read data set: conflict on ${String(streamNames[s])}`);
      versions[s] = outcome.version;
    }
  }
  return { streamNames, eventsPerStream, totalEvents: streams * eventsPerStream };
}

/** The two reads measured: every stream read whole, and the whole log in global order. */
export type ReadKind = 'stream reads' | 'readAll';

/**
 * Times passes of one read over a data set, one pass at a time, so that the scenario can
 * interleave the passes of the product and of the peer. Every pass also checks what it read.
 */
export class ReadMeter {
  private events = 0;
  private seconds = 0;
  private anomaliesSoFar = 0;

  constructor(
    private readonly store: BenchStore,
    private readonly dataSet: ReadDataSet,
    readonly read: ReadKind,
  ) {}

  /** Events read over the summed wall time of the passes. */
  get eventsPerSecond(): number {
    return this.events / this.seconds;
  }

  /** Events missing, out of order, or not ours: 0 for a correct store. */
  get anomalies(): number {
    return this.anomaliesSoFar;
  }

  /** One pass: every stream whole, one after another; or the whole log once. */
  async pass(): Promise<void> {
    const started = performance.now();
    if (this.read === 'stream reads') {
      for (const streamName of this.dataSet.streamNames) {
        const snapshot: StreamSnapshot = await this.store.readStream(streamName);
        this.events += snapshot.events.length;
        this.anomaliesSoFar += Math.abs(snapshot.events.length - this.dataSet.eventsPerStream);
        snapshot.events.forEach((e, i) => {
          if (e.version !== i + 1 || !isBenchEventData(e.data) || e.data.attempt !== i) this.anomaliesSoFar += 1;
        });
      }
    } else {
      const lastVersion = new Map<string, number>();
      const count = await this.store.readAll((e: ReadBackEvent) => {
        if (e.version !== (lastVersion.get(e.streamName) ?? 0) + 1 || !isBenchEventData(e.data)) this.anomaliesSoFar += 1;
        lastVersion.set(e.streamName, e.version);
      });
      this.events += count;
      this.anomaliesSoFar += Math.abs(count - this.dataSet.totalEvents);
    }
    this.seconds += (performance.now() - started) / 1000;
  }
}

// --- many appenders on one stream -------------------------------------------------

/** Sizes and limits of a contention run. */
export interface ContentionOptions {
  readonly appenders: number;
  /** Acknowledged appends each appender makes before it stops. */
  readonly appendsPerAppender: number;
  /** An appender gives up when no appender at all got an append acknowledged for this long. */
  readonly stallMs: number;
  /** And in any case after this long. */
  readonly deadlineMs: number;
}

/** What the appenders saw while racing. */
export interface ContentionRun {
  /** `appender/attempt` of each acknowledged append → the version the store acknowledged. */
  readonly acknowledged: ReadonlyMap<string, number>;
  /** Appends refused as conflicts (their events must not be in the stream). */
  readonly refused: ReadonlySet<string>;
  /** Appends that threw (their events may or may not be in the stream: ambiguous). */
  readonly failed: ReadonlySet<string>;
  readonly conflicts: number;
  readonly errors: ErrorTally;
  /** Appenders that gave up before their last append (stall or deadline). */
  readonly gaveUp: number;
  readonly seconds: number;
}

/**
 * `appenders` concurrent appenders on ONE stream, optimistic concurrency: each reads the
 * stream's version, appends a new event with that expected version, and on a conflict reads
 * and decides again (a new event, never the refused one blindly). Errors other than conflicts
 * are counted and the appender goes on the same way. Each stops after `appendsPerAppender`
 * acknowledged appends, or gives up when the whole run stalls.
 */
export async function raceOnOneStream(store: AppendAndReadStore, streamName: string, options: ContentionOptions): Promise<ContentionRun> {
  const acknowledged = new Map<string, number>();
  const refused = new Set<string>();
  const failed = new Set<string>();
  const errors = new ErrorTally();
  let conflicts = 0;
  let gaveUp = 0;
  const started = performance.now();
  let lastProgress = started;
  await Promise.all(
    Array.from({ length: options.appenders }, async (_, appender) => {
      let done = 0;
      for (let attempt = 0; done < options.appendsPerAppender; attempt += 1) {
        const now = performance.now();
        if (now - lastProgress > options.stallMs || now - started > options.deadlineMs) {
          gaveUp += 1;
          return;
        }
        let version: number;
        try {
          version = await store.readVersion(streamName);
        } catch (error) {
          errors.add(error, 'read');
          await nextTurn();
          continue;
        }
        const key = `${appender}/${attempt}`;
        try {
          const outcome = await store.append(streamName, [benchEvent(appender, attempt)], version);
          if (outcome.kind === 'appended') {
            acknowledged.set(key, outcome.version);
            done += 1;
            lastProgress = performance.now();
          } else {
            conflicts += 1;
            refused.add(key);
          }
        } catch (error) {
          errors.add(error, 'append');
          failed.add(key);
          await nextTurn();
        }
      }
    }),
  );
  return { acknowledged, refused, failed, conflicts, errors, gaveUp, seconds: (performance.now() - started) / 1000 };
}

/** The checks of a contention run against the stream as read back from the closed file. */
export interface ContentionCheck {
  /** Appends aimed at: appenders × appendsPerAppender. */
  readonly target: number;
  readonly acknowledged: number;
  readonly conflicts: number;
  readonly otherErrors: number;
  /** Acknowledged events not found. */
  readonly lost: number;
  /** Extra copies of an event found more than once. */
  readonly duplicated: number;
  /** Events found whose append was refused as a conflict. */
  readonly refusedButWritten: number;
  /** Events found whose append threw (ambiguous, reported, not counted as lost or duplicated). */
  readonly failedButWritten: number;
  /** Versions not exactly 1..n, events not ours, and acknowledged events found at another version than acknowledged. */
  readonly versionAnomalies: number;
  readonly eventsInStream: number;
  /** The stream's version as the store reports it on a fresh read. */
  readonly reportedVersion: number;
  /** The store's own counter of the stream, when it keeps one (the peer). */
  readonly streamCounter?: number;
  readonly gaveUp: number;
  readonly errors: ErrorTally;
  readonly seconds: number;
}

/** Compares what the appenders were told with what the stream holds. */
export function checkContention(run: ContentionRun, readBack: ReadBackSnapshot, options: ContentionOptions): ContentionCheck {
  const found = new Map<string, number[]>();
  let versionAnomalies = 0;
  readBack.events.forEach((e, i) => {
    if (e.version !== i + 1) versionAnomalies += 1;
    if (!isBenchEventData(e.data)) {
      versionAnomalies += 1;
      return;
    }
    const key = `${e.data.appender}/${e.data.attempt}`;
    found.set(key, [...(found.get(key) ?? []), e.version]);
  });
  let lost = 0;
  for (const [key, version] of run.acknowledged) {
    const versions = found.get(key);
    if (versions === undefined) lost += 1;
    else if (!versions.includes(version)) versionAnomalies += 1;
  }
  let duplicated = 0;
  let refusedButWritten = 0;
  let failedButWritten = 0;
  for (const [key, versions] of found) {
    duplicated += versions.length - 1;
    if (run.refused.has(key) && !run.acknowledged.has(key)) refusedButWritten += 1;
    if (run.failed.has(key) && !run.acknowledged.has(key)) failedButWritten += 1;
  }
  return {
    target: options.appenders * options.appendsPerAppender,
    acknowledged: run.acknowledged.size,
    conflicts: run.conflicts,
    otherErrors: run.errors.total,
    lost,
    duplicated,
    refusedButWritten,
    failedButWritten,
    versionAnomalies,
    eventsInStream: readBack.events.length,
    reportedVersion: readBack.version,
    ...(readBack.streamCounter !== undefined ? { streamCounter: readBack.streamCounter } : {}),
    gaveUp: run.gaveUp,
    errors: run.errors,
    seconds: run.seconds,
  };
}

// --- one stale append, no concurrency --------------------------------------------

/** What {@link probeStaleAppend} saw. */
export interface StaleAppendProbe {
  /** The outcome of the append with a stale expected version (a conflict is right). */
  readonly stale: AppendOutcome['kind'];
  /** The outcomes of the next appends, each at the version just read (appended is right). */
  readonly afterwards: readonly AppendOutcome['kind'][];
}

/**
 * One appender, no concurrency: writes 3 events, appends once with a stale expected version,
 * then `retries` times reads the stream's version and appends at it. A correct store refuses
 * the stale append and takes the others.
 */
export async function probeStaleAppend(store: AppendAndReadStore, streamName: string, retries = 3): Promise<StaleAppendProbe> {
  let version = 0;
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const outcome = await store.append(streamName, [benchEvent(0, attempt)], version);
    if (outcome.kind !== 'appended') throw new Error(`stale-append probe: the first appends to ${streamName} were refused`);
    version = outcome.version;
  }
  const stale = (await store.append(streamName, [benchEvent(0, 3)], version - 1)).kind;
  const afterwards: AppendOutcome['kind'][] = [];
  for (let attempt = 4; attempt < 4 + retries; attempt += 1) {
    afterwards.push((await store.append(streamName, [benchEvent(0, attempt)], await store.readVersion(streamName))).kind);
  }
  return { stale, afterwards };
}
