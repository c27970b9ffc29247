import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Database from 'better-sqlite3';
import type { StreamView } from '../core/append-decision';
import { assertDeleteAllowed, decideAppend } from '../core/append-decision';
import { ChangeNotifier } from '../core/change-notifier';
import { allSubscriptionPage, streamSubscriptionPage, subscribeToAllBySequence, subscribeToStreamBySequence } from '../core/sequence-subscriptions';
import { readAllBySequence } from '../core/sequence-reads';
import type { StoredEventRow } from '../core/stored-event-row';
import { toRecordedEvent } from '../core/stored-event-row';
import type { StreamState } from '../core/stream-reads';
import { readStreamRows } from '../core/stream-reads';
import type { EventData, RecordedEvent } from '../port/event';
import type { AppendOptions, AppendResult, DeleteStreamOptions, EventStore } from '../port/event-store';
import type { MultiStreamAppend, StreamAppend } from '../port/multi-stream-append';
import type { ExpectedRevision } from '../port/expected-revision';
import { InvalidOptionError } from '../port/errors/invalid-option.error';
import { StoreClosedError } from '../port/errors/store-closed.error';
import { StreamDeletedError } from '../port/errors/stream-deleted.error';
import { WrongExpectedRevisionError } from '../port/errors/wrong-expected-revision.error';
import { StoreFailureError } from '../port/errors/store-failure.error';
import { enableWal } from './enable-wal';
import type { Position } from '../port/position';
import { positionFromParts } from '../port/position';
import type { StoreIdentity } from '../port/store-identity';
import type { ReadAllOptions, ReadStreamOptions, ReadStreamResult } from '../port/read-options';
import { Direction } from '../port/read-options';
import type { EventSubscription, SubscribeToAllOptions, SubscribeToStreamOptions } from '../port/subscription';
import { assertValidStreamName } from '../stream-name';
import type { PreparedAppend } from '../validation/validate-append';
import { prepareAppend, prepareStreamAppends } from '../validation/validate-append';
import { checkedCall } from '../core/checked-call';
import { positiveInteger, prepareDelete } from '../validation/validate-options';
import { DataVersionPoller } from './data-version-poller';
import { migrate } from './sqlite-schema';
import type { SqliteEventStoreOptions } from './sqlite-options';
import { Durability } from './sqlite-options';
import type { SqlPrefixFilter } from './sql-prefix-filter';
import { sqlPrefixFilter } from './sql-prefix-filter';
import { translateSqliteError } from './translate-sqlite-error';

interface StreamRow {
  readonly last_revision: number;
  readonly truncate_before: number;
  readonly tombstoned: number;
}

/** What one operation of a batch gave. */
type Outcome = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: unknown };

interface Job {
  readonly label: string;
  readonly run: () => unknown;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

/** Counters of an open {@link SqliteEventStore}, for tests, benchmarks and diagnostics. */
export interface SqliteEventStoreStats {
  /** Write transactions committed (or attempted) by this instance. */
  readonly transactions: number;
  /** Write operations (appends, deletes) executed by this instance. */
  readonly operations: number;
  /** Most operations grouped into one transaction so far. */
  readonly largestBatch: number;
}

/** Settings read back from an open {@link SqliteEventStore}. */
export interface SqliteEventStoreDiagnostics {
  /** Absolute path of the database file. */
  readonly path: string;
  /** `wal` when writable. */
  readonly journalMode: string;
  /** `NORMAL` (durability `processCrash`) or `FULL` (`powerLoss`). */
  readonly synchronous: string;
  /** `PRAGMA user_version`. */
  readonly schemaVersion: number;
  /** Whether group commit is on. */
  readonly groupCommit: boolean;
}

const SYNCHRONOUS_NAMES: Record<number, string> = { 0: 'OFF', 1: 'NORMAL', 2: 'FULL', 3: 'EXTRA' };
const MAX_INT = Number.MAX_SAFE_INTEGER;
/** The columns of an event row, in the order of {@link StoredEventRow}. */
const EVENT_COLUMNS = 'position, stream_name, revision, event_id, event_type, data, metadata, created_at';

/**
 * The embedded event store (the default): one SQLite file through
 * better-sqlite3, WAL journaling, zero set-up.
 *
 * - Durability: see {@link Durability} (default: an acknowledged append
 *   survives a process crash; `powerLoss` fsyncs every commit).
 * - Group commit: appends of concurrent async callers made in the same
 *   event-loop turn share one IMMEDIATE transaction; each is checked on its
 *   own inside a savepoint, so a conflict or failure of one does not fail the
 *   others, and every promise settles only after the COMMIT.
 * - Several processes may open the same file: the expected-revision check runs
 *   inside `BEGIN IMMEDIATE` (SQLite's write lock), so it holds across
 *   processes; live subscriptions see other processes' appends by polling
 *   (`minPollIntervalMs`..`maxPollIntervalMs`, 100 ms at worst by default).
 * - Every better-sqlite3 error is translated by {@link translateSqliteError}.
 *
 * @remarks better-sqlite3 is synchronous: each call blocks the event loop for
 * its (short) duration, and up to `busyTimeoutMs` while another process holds
 * the write lock.
 */
export class SqliteEventStore implements EventStore, MultiStreamAppend {
  /** The absolute path of the database file. */
  readonly path: string;
  private readonly db: Database.Database;
  private readonly notifier: ChangeNotifier;
  private readonly poller: DataVersionPoller;
  private readonly groupCommit: boolean;
  private readonly maxBatchSize: number;
  private readonly now: () => number;
  private readonly statements: ReturnType<SqliteEventStore['prepareStatements']>;
  private queue: Job[] = [];
  private flushScheduled = false;
  /** Whether the operation running in a batch has begun writing (see `runBatch`). */
  private operationWrote = false;
  private closed = false;
  private identity: StoreIdentity | undefined;
  private counters = { transactions: 0, operations: 0, largestBatch: 0 };

  private constructor(options: SqliteEventStoreOptions) {
    const durability = options.durability ?? Durability.PROCESS_CRASH;
    if (durability !== Durability.PROCESS_CRASH && durability !== Durability.POWER_LOSS) {
      throw new InvalidOptionError('durability', `expected 'processCrash' or 'powerLoss', got ${String(durability)}`);
    }
    const busyTimeoutMs = nonNegativeInteger(options.busyTimeoutMs, 'busyTimeoutMs', 5_000);
    const minPoll = positiveInteger(options.minPollIntervalMs, 'minPollIntervalMs', 5);
    const maxPoll = positiveInteger(options.maxPollIntervalMs, 'maxPollIntervalMs', 100);
    if (maxPoll < minPoll) throw new InvalidOptionError('maxPollIntervalMs', 'must be >= minPollIntervalMs');
    this.maxBatchSize = positiveInteger(options.maxBatchSize, 'maxBatchSize', 512);
    this.groupCommit = options.groupCommit ?? true;
    this.now = options.now ?? Date.now;
    if (typeof options.path !== 'string' || options.path.trim().length === 0) {
      throw new InvalidOptionError(
        'path',
        `expected the store's file path (there is no default: a library store must not share the agent-ledger service's ./data/agent-ledger.sqlite), got ${JSON.stringify(options.path) ?? String(options.path)}`,
      );
    }
    this.path = resolve(options.path);

    let db: Database.Database | undefined;
    try {
      if (!options.readOnly) mkdirSync(dirname(this.path), { recursive: true });
      db = new Database(this.path, { timeout: busyTimeoutMs, readonly: options.readOnly ?? false, fileMustExist: options.readOnly ?? false });
      if (!options.readOnly) {
        enableWal(db, busyTimeoutMs);
        db.pragma(`synchronous = ${durability === Durability.POWER_LOSS ? 'FULL' : 'NORMAL'}`);
        migrate(db, this.now);
      }
      this.db = db;
      this.statements = this.prepareStatements();
      this.poller = new DataVersionPoller(
        () => this.db.pragma('data_version', { simple: true }) as number,
        () => this.notifier.notify(),
        () => this.notifier.notify(), // let subscriptions hit the error themselves on their next read
        minPoll,
        maxPoll,
      );
    } catch (error) {
      db?.close();
      throw translateSqliteError(error, `open ${this.path}`);
    }

    this.notifier = new ChangeNotifier((waiting) => (waiting && !this.closed ? this.poller.start() : this.poller.stop()));
  }

  /**
   * Opens (creating if needed) the store at `options.path` (required). A new
   * file gets its identity ({@link SqliteEventStore.storeIdentity}) as it is created.
   * @throws StoreUnavailableError when the file cannot be opened; InvalidOptionError for bad options (`path` missing).
   */
  static open(options: SqliteEventStoreOptions): SqliteEventStore {
    return new SqliteEventStore(options);
  }

  /** Counters of this instance. */
  stats(): SqliteEventStoreStats {
    return { ...this.counters };
  }

  /** The settings in force on this instance's connection, read from SQLite. */
  diagnostics(): SqliteEventStoreDiagnostics {
    this.assertOpen();
    return this.guard('diagnostics', () => ({
      path: this.path,
      journalMode: String(this.db.pragma('journal_mode', { simple: true })),
      synchronous: SYNCHRONOUS_NAMES[this.db.pragma('synchronous', { simple: true }) as number] ?? 'unknown',
      schemaVersion: this.db.pragma('user_version', { simple: true }) as number,
      groupCommit: this.groupCommit,
    }));
  }

  async storeIdentity(): Promise<StoreIdentity> {
    this.assertOpen();
    this.identity ??= this.guard('read the store identity', () => {
      const hasTable = this.db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'store_identity'`).get() !== undefined;
      const row = hasTable ? (this.db.prepare('SELECT id, created_at FROM store_identity WHERE singleton = 1').get() as { id: string; created_at: number } | undefined) : undefined;
      if (row === undefined) {
        // Only a file opened read-only can lack it: a writable open records it.
        throw new StoreFailureError('no-identity', `${this.path} has no store identity yet (written by an older version): open it once writable to record one`);
      }
      return Object.freeze({ id: row.id, createdAt: new Date(row.created_at) });
    });
    return this.identity;
  }

  append(streamName: string, events: readonly EventData[], options: AppendOptions): Promise<AppendResult> {
    return checkedCall(
      () => this.opened(prepareAppend(streamName, events, options)),
      (prepared) => this.enqueue(`append to ${streamName}`, () => this.appendInTransaction(prepared)),
    );
  }

  /** Appends to several streams in one transaction ({@link MultiStreamAppend}); it shares a group commit's transaction like any append. */
  appendToStreams(appends: readonly StreamAppend[]): Promise<AppendResult[]> {
    // A part refused after another wrote rolls the job back alone (runBatch's savepoints): all parts or none.
    return checkedCall(
      () => this.opened(prepareStreamAppends(appends)),
      (prepared) => this.enqueue(`append to ${prepared.map((part) => part.streamName).join(', ')}`, () => prepared.map((part) => this.appendInTransaction(part))),
    );
  }

  async readStream(streamName: string, options?: ReadStreamOptions): Promise<ReadStreamResult> {
    assertValidStreamName(streamName);
    this.assertOpen();
    try {
      return this.db.transaction(() => {
        const state = this.streamState(streamName);
        return readStreamRows(streamName, state, options, (from, to, direction, limit) =>
          (direction === Direction.FORWARDS ? this.statements.streamForwards : this.statements.streamBackwards).all(
            streamName,
            from,
            to,
            limit,
          ) as StoredEventRow[],
        );
      })();
    } catch (error) {
      throw translateSqliteError(error, `read ${streamName}`);
    }
  }

  readAll(options?: ReadAllOptions): AsyncIterable<RecordedEvent> {
    return readAllBySequence(
      (cursor, direction, limit) => this.guard('read $all', () => this.pageOfAll(cursor, direction, limit)),
      options,
      () => this.assertOpen(),
    );
  }

  subscribeToStream(streamName: string, options: SubscribeToStreamOptions = {}): EventSubscription {
    assertValidStreamName(streamName);
    this.assertOpen();
    return subscribeToStreamBySequence(options, {
      notifier: this.notifier,
      isClosed: () => this.closed,
      readPage: (cursor: number, limit: number) =>
        this.guard(`subscribe to ${streamName}`, () => {
          const rows = this.statements.streamSubscriptionPage.all(streamName, cursor, streamName, limit) as StoredEventRow[];
          return streamSubscriptionPage(rows, cursor, limit);
        }),
    });
  }

  subscribeToAll(options: SubscribeToAllOptions = {}): EventSubscription {
    this.assertOpen();
    return subscribeToAllBySequence(options, (filter) => {
      const inSql = filter === undefined ? null : sqlPrefixFilter(filter.filter);
      const filteredPage = inSql === null ? null : this.filteredPageReader(inSql);
      return {
        notifier: this.notifier,
        isClosed: () => this.closed,
        readPage: (cursor: number, limit: number) =>
          this.guard('subscribe to $all', () => {
            if (filteredPage !== null) {
              // SQLite skips what the filter drops: a sparse subscription does not build every event of the log.
              const page = filteredPage(cursor, limit);
              return { events: page.rows.map(toRecordedEvent), next: page.next, exhausted: page.exhausted };
            }
            return allSubscriptionPage(this.pageOfAll(cursor, Direction.FORWARDS, limit), cursor, limit, filter);
          }),
      };
    });
  }

  /**
   * Pages of `$all` after a cursor that match `filter`, read in one snapshot
   * with how far they were looked for (positions commit in order), so that the
   * cursor moves past the rows the filter dropped.
   */
  private filteredPageReader(filter: SqlPrefixFilter): (cursor: number, limit: number) => { rows: StoredEventRow[]; next: number; exhausted: boolean } {
    const select = this.db.prepare(`SELECT ${EVENT_COLUMNS} FROM events WHERE position > ? AND ${filter.condition} ORDER BY position ASC LIMIT ?`);
    return this.db.transaction((cursor: number, limit: number) => {
      const rows = select.all(cursor, ...filter.parameters, limit) as StoredEventRow[];
      if (rows.length >= limit) return { rows, next: (rows[rows.length - 1] as StoredEventRow).position, exhausted: false };
      const last = (this.statements.lastPosition.get() as { last: number | null }).last;
      return { rows, next: Math.max(cursor, last ?? 0), exhausted: true };
    });
  }

  deleteStream(streamName: string, options: DeleteStreamOptions = {}): Promise<void> {
    return this.delete(streamName, options, false);
  }

  tombstoneStream(streamName: string, options: DeleteStreamOptions = {}): Promise<void> {
    return this.delete(streamName, options, true);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.flush(); // accepted appends commit before the file closes
    this.closed = true;
    this.poller.stop();
    this.notifier.close();
    try {
      this.db.close();
    } catch (error) {
      throw translateSqliteError(error, 'close');
    }
  }

  // --- writes -------------------------------------------------------------

  private delete(streamName: string, options: DeleteStreamOptions, tombstone: boolean): Promise<void> {
    return checkedCall(
      () => this.opened(prepareDelete(streamName, options)),
      (expected) => this.enqueue(`${tombstone ? 'tombstone' : 'delete'} ${streamName}`, () => this.deleteInTransaction(streamName, expected, tombstone)),
    );
  }

  private deleteInTransaction(streamName: string, expected: ExpectedRevision, tombstone: boolean): undefined {
    const state = this.streamState(streamName);
    assertDeleteAllowed(streamName, this.view(streamName, state), expected);
    const last = state?.lastRevision ?? -1;
    this.operationWrote = true;
    if (tombstone) this.statements.tombstone.run({ stream: streamName, last });
    else this.statements.softDelete.run({ stream: streamName, last, truncateBefore: last + 1 });
    return undefined;
  }

  private appendInTransaction(append: PreparedAppend): AppendResult {
    const { streamName, events, expectedRevision } = append;
    const state = this.streamState(streamName);
    const decision = decideAppend(this.view(streamName, state), events.map((e) => e.id), expectedRevision);
    switch (decision.kind) {
      case 'deleted':
        throw new StreamDeletedError(streamName);
      case 'conflict':
        throw new WrongExpectedRevisionError(streamName, expectedRevision, decision.actual);
      case 'idempotent': {
        const row = this.statements.positionAt.get(streamName, decision.lastRevision) as { position: number };
        return { nextExpectedRevision: BigInt(decision.lastRevision), position: toPosition(row.position) };
      }
      case 'write': {
        const created = this.now();
        let revision = decision.firstRevision;
        let position = 0;
        this.operationWrote = true;
        for (const event of events) {
          const info = this.statements.insertEvent.run(streamName, revision, event.id, event.type, event.dataJson, event.metadataJson, created);
          position = Number(info.lastInsertRowid);
          revision++;
        }
        this.statements.upsertStream.run(streamName, revision - 1);
        return { nextExpectedRevision: BigInt(revision - 1), position: toPosition(position) };
      }
    }
  }

  private enqueue<T>(label: string, run: () => T): Promise<T> {
    return new Promise<T>((resolvePromise, rejectPromise) => {
      this.queue.push({ label, run, resolve: resolvePromise as (value: unknown) => void, reject: rejectPromise });
      if (!this.groupCommit) {
        this.flush();
        return;
      }
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /** Runs every queued operation, in batches of at most `maxBatchSize`, one transaction per batch. */
  private flush(): void {
    this.flushScheduled = false;
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.maxBatchSize);
      if (this.closed) {
        for (const job of batch) job.reject(new StoreClosedError());
        continue;
      }
      this.runBatch(batch);
    }
  }

  /**
   * Runs a batch in one transaction. Most operations that fail do so before
   * they write (a concurrency conflict, a deleted stream): those need nothing
   * undone, so the batch runs without a savepoint per operation. When one
   * fails after it began writing, its partial writes must go: the whole
   * transaction is rolled back and the batch runs again with a savepoint per
   * operation (nothing was committed nor answered yet; the operations read
   * the store afresh, so their answers are those of the second run).
   */
  private runBatch(batch: readonly Job[]): void {
    this.counters.transactions++;
    this.counters.operations += batch.length;
    this.counters.largestBatch = Math.max(this.counters.largestBatch, batch.length);
    if (!this.begin(batch)) return;
    const outcomes: Outcome[] = [];
    for (const job of batch) {
      this.operationWrote = false;
      try {
        outcomes.push({ ok: true, value: job.run() });
      } catch (error) {
        outcomes.push({ ok: false, error: translateSqliteError(error, job.label) });
        // On SQLITE_FULL, IOERR, BUSY or NOMEM SQLite may roll the whole transaction back by itself:
        // the batch is then lost, and nothing more may run outside a transaction.
        if (!this.db.inTransaction) {
          this.abortBatch(batch, outcomes, error);
          return;
        }
        if (this.operationWrote) {
          try {
            this.statements.rollback.run();
          } catch {
            this.abortBatch(batch, outcomes, error);
            return;
          }
          this.runBatchWithSavepoints(batch);
          return;
        }
      }
    }
    this.commitBatch(batch, outcomes);
  }

  /** A batch with a savepoint per operation: one that fails is rolled back alone, the others commit. */
  private runBatchWithSavepoints(batch: readonly Job[]): void {
    if (!this.begin(batch)) return;
    const outcomes: Outcome[] = [];
    for (const job of batch) {
      try {
        this.statements.savepoint.run();
      } catch (error) {
        this.abortBatch(batch, outcomes, error);
        return;
      }
      try {
        const value = job.run();
        this.statements.release.run();
        outcomes.push({ ok: true, value });
      } catch (error) {
        outcomes.push({ ok: false, error: translateSqliteError(error, job.label) });
        if (!this.db.inTransaction) {
          this.abortBatch(batch, outcomes, error);
          return;
        }
        try {
          this.statements.rollbackTo.run();
          this.statements.release.run();
        } catch {
          this.abortBatch(batch, outcomes, error);
          return;
        }
      }
    }
    this.commitBatch(batch, outcomes);
  }

  /** Begins a batch's write transaction; false (every operation failed) when it cannot. */
  private begin(batch: readonly Job[]): boolean {
    try {
      this.statements.begin.run();
      return true;
    } catch (error) {
      const translated = translateSqliteError(error, `begin (${batch.length} operations)`);
      for (const job of batch) job.reject(translated);
      return false;
    }
  }

  /** Commits a batch, then answers each operation. */
  private commitBatch(batch: readonly Job[], outcomes: readonly Outcome[]): void {
    try {
      this.statements.commit.run();
    } catch (error) {
      this.abortBatch(batch, outcomes, error);
      return;
    }
    let wrote = false;
    batch.forEach((job, i) => {
      const outcome = outcomes[i] as Outcome;
      if (outcome.ok) {
        wrote = true;
        job.resolve(outcome.value);
      } else job.reject(outcome.error);
    });
    if (wrote) this.notifier.notify();
  }

  /** Rolls the transaction back and fails every operation of the batch that had not already failed on its own. */
  private abortBatch(batch: readonly Job[], outcomes: ReadonlyArray<{ ok: boolean; error?: unknown }>, cause: unknown): void {
    try {
      if (this.db.inTransaction) this.statements.rollback.run();
    } catch {
      // the rollback failing too leaves nothing more to do: SQLite rolls back on the next open
    }
    const translated = translateSqliteError(cause, `write transaction of ${batch.length} operations rolled back`);
    batch.forEach((job, i) => {
      const outcome = outcomes[i];
      job.reject(outcome && !outcome.ok ? outcome.error : translated);
    });
  }

  // --- reads --------------------------------------------------------------

  private streamState(streamName: string): StreamState | undefined {
    const row = this.statements.getStream.get(streamName) as StreamRow | undefined;
    if (!row) return undefined;
    return { lastRevision: row.last_revision, firstVisibleRevision: row.truncate_before, tombstoned: row.tombstoned === 1 };
  }

  private view(streamName: string, state: StreamState | undefined): StreamView {
    const first = state?.firstVisibleRevision ?? 0;
    return {
      tombstoned: state?.tombstoned ?? false,
      firstVisibleRevision: first,
      lastRevision: state?.lastRevision ?? -1,
      eventIdAt: (revision) =>
        revision < first ? undefined : (this.statements.eventIdAt.get(streamName, revision) as { event_id: string } | undefined)?.event_id,
      revisionOfEventId: (id) => (this.statements.revisionOfEventId.get(streamName, id, first) as { revision: number } | undefined)?.revision,
    };
  }

  private pageOfAll(cursor: number, direction: Direction, limit: number): StoredEventRow[] {
    return (direction === Direction.FORWARDS ? this.statements.allForwards : this.statements.allBackwards).all(
      Math.min(cursor, MAX_INT),
      limit,
    ) as StoredEventRow[];
  }

  private guard<T>(context: string, fn: () => T): T {
    this.assertOpen();
    try {
      return fn();
    } catch (error) {
      throw translateSqliteError(error, context);
    }
  }

  /** `checked`, once the store is found open. */
  private opened<C>(checked: C): C {
    this.assertOpen();
    return checked;
  }

  private assertOpen(): void {
    if (this.closed) throw new StoreClosedError();
  }

  private prepareStatements() {
    const db = this.db;
    const columns = EVENT_COLUMNS;
    return {
      begin: db.prepare('BEGIN IMMEDIATE'),
      commit: db.prepare('COMMIT'),
      rollback: db.prepare('ROLLBACK'),
      savepoint: db.prepare('SAVEPOINT op'),
      release: db.prepare('RELEASE op'),
      rollbackTo: db.prepare('ROLLBACK TO op'),
      getStream: db.prepare('SELECT last_revision, truncate_before, tombstoned FROM streams WHERE stream_name = ?'),
      eventIdAt: db.prepare('SELECT event_id FROM events WHERE stream_name = ? AND revision = ?'),
      revisionOfEventId: db.prepare(
        'SELECT revision FROM events WHERE stream_name = ? AND event_id = ? AND revision >= ? ORDER BY revision LIMIT 1',
      ),
      positionAt: db.prepare('SELECT position FROM events WHERE stream_name = ? AND revision = ?'),
      insertEvent: db.prepare(
        'INSERT INTO events (stream_name, revision, event_id, event_type, data, metadata, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      ),
      upsertStream: db.prepare(
        'INSERT INTO streams (stream_name, last_revision) VALUES (?, ?) ON CONFLICT (stream_name) DO UPDATE SET last_revision = excluded.last_revision',
      ),
      softDelete: db.prepare(
        'INSERT INTO streams (stream_name, last_revision, truncate_before) VALUES (@stream, @last, @truncateBefore) ON CONFLICT (stream_name) DO UPDATE SET truncate_before = @truncateBefore',
      ),
      tombstone: db.prepare(
        'INSERT INTO streams (stream_name, last_revision, tombstoned) VALUES (@stream, @last, 1) ON CONFLICT (stream_name) DO UPDATE SET tombstoned = 1',
      ),
      streamForwards: db.prepare(
        `SELECT ${columns} FROM events WHERE stream_name = ? AND revision BETWEEN ? AND ? ORDER BY revision ASC LIMIT ?`,
      ),
      streamBackwards: db.prepare(
        `SELECT ${columns} FROM events WHERE stream_name = ? AND revision BETWEEN ? AND ? ORDER BY revision DESC LIMIT ?`,
      ),
      streamSubscriptionPage: db.prepare(
        `SELECT ${columns} FROM events WHERE stream_name = ? AND revision > ?
           AND revision >= coalesce((SELECT truncate_before FROM streams WHERE stream_name = ?), 0)
         ORDER BY revision ASC LIMIT ?`,
      ),
      lastPosition: db.prepare('SELECT max(position) AS last FROM events'),
      allForwards: db.prepare(`SELECT ${columns} FROM events WHERE position > ? ORDER BY position ASC LIMIT ?`),
      allBackwards: db.prepare(`SELECT ${columns} FROM events WHERE position < ? ORDER BY position DESC LIMIT ?`),
    };
  }
}

function toPosition(sequence: number): Position {
  return positionFromParts({ commit: BigInt(sequence), prepare: BigInt(sequence) });
}

function nonNegativeInteger(value: unknown, option: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new InvalidOptionError(option, `expected an integer >= 0, got ${String(value)}`);
  }
  return value;
}
