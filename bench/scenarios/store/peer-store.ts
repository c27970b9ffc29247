import type { Durability } from '@agent-ledger/event-store';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { BenchEvent } from './bench-events';
import type { AppendAndReadStore, AppendOutcome, BenchStore, CommitStats, ReadBackEvent, ReadBackSnapshot, StoreKind, StreamSnapshot } from './bench-store';

/**
 * The peer of the store scenario: Emmett's SQLite event store
 * (`@event-driven-io/emmett-sqlite`), a dependency of the bench only, installed
 * in `bench/peer` by `bench/peer/ensure-installed.js`. It is loaded at run time
 * with `createRequire`, so that nothing of the product, and not the type check,
 * needs it; the small interfaces below describe the few calls used (version
 * 0.38.5, `dist/index.d.cts`).
 */

/** `bench/peer`, where the peer's package.json and node_modules live. */
export const DEFAULT_PEER_DIRECTORY = join(__dirname, '..', '..', 'peer');

const PEER_PACKAGE = '@event-driven-io/emmett-sqlite';

/** The peer's connection (`sqliteConnection`): one node-sqlite3 `Database`. */
export interface PeerConnection {
  close(): void;
  command(sql: string, values?: unknown[]): Promise<unknown>;
  /** `undefined` (typed `null` by the peer) when there is no row. */
  querySingle<T>(sql: string, values?: unknown[]): Promise<T | null | undefined>;
}

/** An event as the peer takes it. */
interface PeerEvent {
  readonly type: string;
  readonly data: Record<string, unknown>;
}

/** An event as the peer returns it. */
interface PeerReadEvent {
  readonly type: string;
  readonly data: unknown;
  readonly metadata: { readonly streamName: string; readonly streamPosition: bigint; readonly globalPosition: bigint };
}

interface PeerReadStreamResult {
  readonly currentStreamVersion: bigint;
  readonly events: readonly PeerReadEvent[];
}

/** The peer's expected-version option: its versions are 1-based event counts, `0n` meaning a new stream. */
interface PeerAppendOptions {
  readonly expectedStreamVersion?: bigint;
}

/** The peer's documented event store object (`getSQLiteEventStore`). */
interface PeerEventStore {
  appendToStream(streamName: string, events: PeerEvent[], options?: PeerAppendOptions): Promise<{ readonly nextExpectedStreamVersion: bigint }>;
  readStream(streamName: string): Promise<PeerReadStreamResult>;
}

/** The exports of `@event-driven-io/emmett-sqlite` that the scenario uses. */
export interface EmmettSqlite {
  getSQLiteEventStore(options: { fileName: string }): PeerEventStore;
  sqliteConnection(options: { fileName: string }): PeerConnection;
  createEventStoreSchema(connection: PeerConnection): Promise<void>;
  appendToStream(
    connection: PeerConnection,
    streamName: string,
    streamType: string,
    messages: PeerEvent[],
    options?: PeerAppendOptions,
  ): Promise<{ readonly success: true; readonly nextStreamPosition: bigint } | { readonly success: false }>;
  readStream(connection: PeerConnection, streamName: string): Promise<PeerReadStreamResult>;
  readMessagesBatch(
    connection: PeerConnection,
    options: { after: bigint; batchSize: number },
  ): Promise<{ readonly currentGlobalPosition: bigint; readonly messages: readonly PeerReadEvent[]; readonly areEventsLeft: boolean }>;
}

/** The peer, loaded. */
export interface LoadedPeer {
  readonly api: EmmettSqlite;
  /** Transactions of the peer's connections, as seen by the watch on its driver. */
  readonly transactions: PeerTransactionWatch;
  /** `@event-driven-io/emmett-sqlite` version. */
  readonly version: string;
  /** The SQLite library of node-sqlite3, which the peer runs on. */
  readonly sqliteVersion: string;
}

/** Whether the peer could be loaded, and why not. */
export type PeerLoadResult = { readonly loaded: true; readonly peer: LoadedPeer } | { readonly loaded: false; readonly reason: string };

/**
 * Loads the peer from `peerDirectory` (default `bench/peer`).
 * @returns `loaded: false` with a reason starting `peer not installed` when its node_modules is missing,
 *   or `peer not loadable` when it is there but does not load (a failed native build, another API).
 */
export function loadPeer(peerDirectory: string = DEFAULT_PEER_DIRECTORY): PeerLoadResult {
  const manifest = join(peerDirectory, 'node_modules', ...PEER_PACKAGE.split('/'), 'package.json');
  if (!existsSync(manifest)) {
    return { loaded: false, reason: `peer not installed (${manifest} missing; install it with: node bench/peer/ensure-installed.js)` };
  }
  try {
    const requirePeer = createRequire(join(peerDirectory, 'package.json'));
    const api = requirePeer(PEER_PACKAGE) as Partial<EmmettSqlite>;
    const missing = (['getSQLiteEventStore', 'sqliteConnection', 'createEventStoreSchema', 'appendToStream', 'readStream', 'readMessagesBatch'] as const).filter(
      (name) => typeof api[name] !== 'function',
    );
    if (missing.length > 0) return { loaded: false, reason: `peer not loadable: ${PEER_PACKAGE} exports no ${missing.join(', ')}` };
    const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string };
    const { VERSION: sqliteVersion } = requirePeer('sqlite3') as { VERSION: string };
    const transactions = PeerTransactionWatch.on(requirePeer('sqlite3') as { Database: { prototype: object } });
    return { loaded: true, peer: { api: api as EmmettSqlite, version, sqliteVersion, transactions } };
  } catch (error) {
    return { loaded: false, reason: `peer not loadable: ${error instanceof Error ? error.message : String(error)}` };
  }
}

/** Whether an error thrown by the peer's event store is its optimistic-concurrency error (`ExpectedVersionConflictError`, HTTP-like code 412). */
function isPeerConflict(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { errorCode?: unknown }).errorCode === 412;
}

/** The stream type the peer's event store derives from a stream name (the part before the first dash). */
function streamTypeOf(streamName: string): string {
  const [first, ...rest] = streamName.split('-');
  return first !== undefined && first !== '' && rest.length > 0 ? first : 'emt:unknown';
}

const toPeerEvent = (e: BenchEvent): PeerEvent => ({ type: e.type, data: { ...e.data } });

const toReadBack = (e: PeerReadEvent): ReadBackEvent => ({
  streamName: e.metadata.streamName,
  version: Number(e.metadata.streamPosition),
  type: e.type,
  data: e.data,
});

const snapshotOf = (result: PeerReadStreamResult): StreamSnapshot => ({
  version: Number(result.currentStreamVersion),
  events: result.events.map(toReadBack),
});

/** Reads the first column of a one-row query (PRAGMAs). */
async function scalar(connection: PeerConnection, sql: string): Promise<string> {
  const row = await connection.querySingle<Record<string, unknown>>(sql);
  return row === null || row === undefined ? 'none' : String(Object.values(row)[0]);
}

const SYNCHRONOUS_NAMES: Readonly<Record<string, string>> = { '0': 'OFF', '1': 'NORMAL', '2': 'FULL', '3': 'EXTRA' };

/** journal_mode, synchronous and busy_timeout of a peer connection, as SQLite reports them. */
async function pragmasOf(connection: PeerConnection): Promise<string> {
  const journal = await scalar(connection, 'PRAGMA journal_mode');
  const synchronous = await scalar(connection, 'PRAGMA synchronous');
  const busy = await scalar(connection, 'PRAGMA busy_timeout');
  return `journal_mode=${journal} synchronous=${SYNCHRONOUS_NAMES[synchronous] ?? synchronous} busy_timeout=${busy} ms`;
}

/** Reads a stream back through a fresh connection, with the peer's own counter of the stream (`emt_streams.stream_position`). */
async function readBackWithCounter(peer: LoadedPeer, path: string, streamName: string): Promise<ReadBackSnapshot> {
  const connection = peer.api.sqliteConnection({ fileName: path });
  try {
    const snapshot = snapshotOf(await peer.api.readStream(connection, streamName));
    const counter = await connection.querySingle<{ stream_position: number | string }>('SELECT stream_position FROM emt_streams WHERE stream_id = ?', [
      streamName,
    ]);
    return counter === null || counter === undefined ? snapshot : { ...snapshot, streamCounter: Number(counter.stream_position) };
  } finally {
    connection.close();
  }
}

/** The peer's functions on one long-lived connection, as its event store uses them minus the connection per call. */
class PeerConnectionStore implements BenchStore {
  private readonly commitsAtOpen: number;
  private acknowledgedBeforeCommit = 0;

  constructor(
    private readonly peer: LoadedPeer,
    private readonly connection: PeerConnection,
  ) {
    // A transaction left open by an earlier connection (closed inside it, or confused by the
    // races) must not count against this one: no transaction of this connection is open yet.
    peer.transactions.open = 0;
    this.commitsAtOpen = peer.transactions.commits;
  }

  async append(streamName: string, events: readonly BenchEvent[], expectedVersion: number): Promise<AppendOutcome> {
    const result = await this.peer.api.appendToStream(this.connection, streamName, streamTypeOf(streamName), events.map(toPeerEvent), {
      expectedStreamVersion: BigInt(expectedVersion),
    });
    if (!result.success) return { kind: 'conflict' };
    // One peer connection is open at a time in the throughput runs: an open transaction now is this connection's.
    if (this.peer.transactions.open > 0) this.acknowledgedBeforeCommit += 1;
    return { kind: 'appended', version: Number(result.nextStreamPosition) };
  }

  commitStats(): CommitStats {
    return { commits: this.peer.transactions.commits - this.commitsAtOpen, acknowledgedBeforeCommit: this.acknowledgedBeforeCommit };
  }

  async readStream(streamName: string): Promise<StreamSnapshot> {
    return snapshotOf(await this.peer.api.readStream(this.connection, streamName));
  }

  async readVersion(streamName: string): Promise<number> {
    return (await this.readStream(streamName)).version;
  }

  /** The peer's event store has no read of the whole log; its consumers page through it with `readMessagesBatch`, as here. */
  async readAll(visit: (event: ReadBackEvent) => void): Promise<number> {
    let after = 0n;
    let count = 0;
    for (;;) {
      const page = await this.peer.api.readMessagesBatch(this.connection, { after, batchSize: 256 });
      for (const message of page.messages) visit(toReadBack(message));
      count += page.messages.length;
      if (!page.areEventsLeft || page.messages.length === 0) return count;
      after = page.currentGlobalPosition;
    }
  }

  async close(): Promise<void> {
    this.connection.close();
  }
}

/**
 * The peer through its exported functions (`sqliteConnection`, `createEventStoreSchema`,
 * `appendToStream`, `readStream`, `readMessagesBatch`) on one connection per store, which
 * lets the scenario give it the product's durability: `PRAGMA synchronous` NORMAL or FULL,
 * journal_mode WAL (which `sqliteConnection` asks for itself). Used for throughput.
 */
export function peerConnectionKind(peer: LoadedPeer): StoreKind<BenchStore> {
  const openConnection = async (path: string, durability: Durability): Promise<PeerConnection> => {
    const connection = peer.api.sqliteConnection({ fileName: path });
    try {
      // sqliteConnection issues `PRAGMA journal_mode = WAL` without waiting for it: wait for it here.
      await connection.command('PRAGMA journal_mode = WAL');
      await connection.command(`PRAGMA synchronous = ${durability === 'powerLoss' ? 'FULL' : 'NORMAL'}`);
      await peer.api.createEventStoreSchema(connection);
      return connection;
    } catch (error) {
      connection.close();
      throw error;
    }
  };
  return {
    subject: 'peer',
    api: 'one connection',
    open: async (path, durability) => new PeerConnectionStore(peer, await openConnection(path, durability)),
    describeSettings: async (path, durability) => {
      const connection = await openConnection(path, durability);
      try {
        return `${await pragmasOf(connection)} (node-sqlite3, one connection shared by all appenders; synchronous set by the bench)`;
      } finally {
        connection.close();
      }
    },
    readBack: (path, streamName) => readBackWithCounter(peer, path, streamName),
  };
}

/** The peer's documented event store object (`getSQLiteEventStore({ fileName })`). */
class PeerDocumentedStore implements AppendAndReadStore {
  constructor(private readonly store: PeerEventStore) {}

  async append(streamName: string, events: readonly BenchEvent[], expectedVersion: number): Promise<AppendOutcome> {
    try {
      const result = await this.store.appendToStream(streamName, events.map(toPeerEvent), { expectedStreamVersion: BigInt(expectedVersion) });
      return { kind: 'appended', version: Number(result.nextExpectedStreamVersion) };
    } catch (error) {
      if (isPeerConflict(error)) return { kind: 'conflict' };
      throw error;
    }
  }

  async readStream(streamName: string): Promise<StreamSnapshot> {
    return snapshotOf(await this.store.readStream(streamName));
  }

  async readVersion(streamName: string): Promise<number> {
    return (await this.readStream(streamName)).version;
  }

  /** Nothing to close: the object opens and closes a connection around each call. */
  async close(): Promise<void> {}
}

/**
 * The peer as its documentation has it used: `getSQLiteEventStore({ fileName })`. For a file, it
 * opens a connection per call (closed at the end of the call; concurrent calls share the one
 * that is open), with `journal_mode = WAL` and SQLite's default `synchronous` (its options
 * have no durability setting, so `durability` is ignored). Used for the concurrency check only.
 */
export function peerEventStoreKind(peer: LoadedPeer): StoreKind {
  return {
    subject: 'peer',
    api: 'getSQLiteEventStore',
    open: async (path) => new PeerDocumentedStore(peer.api.getSQLiteEventStore({ fileName: path })),
    describeSettings: async (path) => {
      // One call creates the schema and makes the file WAL (persistent); then look at what a new
      // connection of the peer, like the one each call opens, has in force.
      await peer.api.getSQLiteEventStore({ fileName: path }).readStream('settings-probe');
      const connection = peer.api.sqliteConnection({ fileName: path });
      try {
        return `${await pragmasOf(connection)} (node-sqlite3, a new connection per call; synchronous is SQLite's default, not settable through its options)`;
      } finally {
        connection.close();
      }
    },
    readBack: (path, streamName) => readBackWithCounter(peer, path, streamName),
  };
}

/**
 * Watches the transactions of the peer's connections: wraps node-sqlite3's `Database#run` (of
 * the peer's own copy of the driver) so that the completion of a `BEGIN`, `COMMIT` or
 * `ROLLBACK` issued with a callback, as the peer's `withTransaction` issues them, is counted.
 * The callbacks are called exactly as before; nothing else is touched. Process-wide: it cannot
 * tell two connections apart, so the scenario reads it while one peer connection is open, and
 * sets `open` back to 0 when it opens one.
 */
export class PeerTransactionWatch {
  private static readonly watches = new WeakMap<object, PeerTransactionWatch>();

  /** Write transactions begun and not yet committed or rolled back. */
  open = 0;
  /** Transactions committed. */
  commits = 0;

  private constructor() {}

  /** The watch of this copy of node-sqlite3, installed on first use. */
  static on(sqlite3: { Database: { prototype: object } }): PeerTransactionWatch {
    const prototype = sqlite3.Database.prototype as { run: (this: unknown, sql: unknown, ...rest: unknown[]) => unknown };
    const existing = PeerTransactionWatch.watches.get(prototype);
    if (existing !== undefined) return existing;
    const watch = new PeerTransactionWatch();
    const run = prototype.run;
    prototype.run = function runWatched(this: unknown, sql: unknown, ...rest: unknown[]): unknown {
      const kind = typeof sql === 'string' ? /^\s*(BEGIN|COMMIT|END|ROLLBACK)\b/i.exec(sql)?.[1]?.toUpperCase() : undefined;
      const callback = rest[rest.length - 1];
      if (kind !== undefined && typeof callback === 'function') {
        rest[rest.length - 1] = function transactionDone(this: unknown, error: unknown, ...more: unknown[]): unknown {
          if (error === null || error === undefined) watch.completed(kind);
          return (callback as (...args: unknown[]) => unknown).call(this, error, ...more);
        };
      }
      return run.call(this, sql, ...rest);
    };
    PeerTransactionWatch.watches.set(prototype, watch);
    return watch;
  }

  private completed(kind: string): void {
    if (kind === 'BEGIN') {
      this.open += 1;
    } else {
      this.open = Math.max(0, this.open - 1);
      if (kind !== 'ROLLBACK') this.commits += 1;
    }
  }
}

/**
 * The peer writes every error it rethrows from a transaction to `console.log` (stdout, where
 * `npm run bench` prints its tables). While a peer phase runs, this counts those lines instead
 * of printing them; the scenario reports the count.
 */
export class PeerConsoleCapture {
  private depth = 0;
  private original: typeof console.log | null = null;
  private readonly counts = new Map<string, number>();

  /** Runs `phase` with `console.log` captured. */
  async during<T>(phase: () => Promise<T>): Promise<T> {
    if (this.depth++ === 0) {
      this.original = console.log;
      console.log = (...args: unknown[]) => this.record(args);
    }
    try {
      return await phase();
    } finally {
      if (--this.depth === 0 && this.original !== null) {
        console.log = this.original;
        this.original = null;
      }
    }
  }

  /** Lines captured so far, by first line of text. */
  summary(): { readonly total: number; readonly distinct: ReadonlyMap<string, number> } {
    let total = 0;
    for (const n of this.counts.values()) total += n;
    return { total, distinct: this.counts };
  }

  private record(args: unknown[]): void {
    const first = args[0];
    const text = first instanceof Error ? `${(first as { code?: string }).code ?? first.name}: ${first.message}` : args.map(String).join(' ');
    const key = text.split('\n')[0]?.slice(0, 160) ?? '';
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
  }
}
