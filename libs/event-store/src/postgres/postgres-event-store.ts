import { Pool } from 'pg';
import type { ClientConfig, PoolClient } from 'pg';
import type { StreamView } from '../core/append-decision';
import { assertDeleteAllowed, decideAppend } from '../core/append-decision';
import { ChangeNotifier } from '../core/change-notifier';
import { abortableDelay } from '../core/pull-batches';
import { allSubscriptionPage, streamSubscriptionPage, subscribeToAllBySequence, subscribeToStreamBySequence } from '../core/sequence-subscriptions';
import { readAllBySequence } from '../core/sequence-reads';
import type { StoredEventRow } from '../core/stored-event-row';
import { toRecordedEvent } from '../core/stored-event-row';
import type { StreamState } from '../core/stream-reads';
import { planStreamRead } from '../core/stream-reads';
import type { EventData, RecordedEvent } from '../port/event';
import type { AppendOptions, AppendResult, DeleteStreamOptions, EventStore } from '../port/event-store';
import { ExpectedRevision as Expected } from '../port/expected-revision';
import type { ExpectedRevision } from '../port/expected-revision';
import { EventStoreError } from '../port/errors/event-store-error';
import { InvalidOptionError } from '../port/errors/invalid-option.error';
import { StoreClosedError } from '../port/errors/store-closed.error';
import { StoreFailureError } from '../port/errors/store-failure.error';
import { StoreUnavailableError, StoreUnavailableReason } from '../port/errors/store-unavailable.error';
import { StreamDeletedError } from '../port/errors/stream-deleted.error';
import { WrongExpectedRevisionError } from '../port/errors/wrong-expected-revision.error';
import type { Position } from '../port/position';
import { positionFromParts } from '../port/position';
import type { ReadAllOptions, ReadStreamOptions, ReadStreamResult } from '../port/read-options';
import { Direction } from '../port/read-options';
import type { StoreIdentity } from '../port/store-identity';
import type { EventSubscription, SubscribeToAllOptions, SubscribeToStreamOptions } from '../port/subscription';
import { assertValidStreamName } from '../stream-name';
import type { PreparedAppend } from '../validation/validate-append';
import { prepareAppend } from '../validation/validate-append';
import { positiveInteger, prepareDelete } from '../validation/validate-options';
import { PostgresChangeListener } from './postgres-change-listener';
import type { PostgresEventStoreOptions } from './postgres-options';
import { DEFAULT_POSTGRES_SCHEMA, isPostgresSchemaName } from './postgres-options';
import { migrate } from './postgres-schema';
import { translatePostgresError } from './translate-postgres-error';

/** Event columns in the order of {@link StoredEventRow}; bigints come back as text and are converted by {@link toRow}. */
const EVENT_COLUMNS = 'position, stream_name, revision, event_id::text AS event_id, event_type, data, metadata, created_at';

interface RawEventRow {
  position: string;
  stream_name: string;
  revision: string;
  event_id: string;
  event_type: string;
  data: string;
  metadata: string;
  created_at: string;
}

/**
 * The PostgreSQL event store, on node-postgres with a pool.
 *
 * - Global order without gaps: every write transaction first locks the single
 *   row of `log_head` (`SELECT ... FOR UPDATE`) and assigns positions from it,
 *   so writes are serialised and commit in position order; a reader that sees
 *   position p sees every position below p (docs/event-store.md, "PostgreSQL adapter").
 * - Live subscriptions are woken by LISTEN/NOTIFY ({@link PostgresChangeListener}),
 *   with a slow fallback tick while they wait.
 * - The schema (option `schema`) is created or migrated before the first call.
 * - Every node-postgres error is translated by {@link translatePostgresError}.
 */
export class PostgresEventStore implements EventStore {
  /** The schema holding the store's tables. */
  readonly schema: string;
  private readonly pool: Pool;
  private readonly notifier: ChangeNotifier;
  private readonly listener: PostgresChangeListener;
  private readonly channel: string;
  private readonly now: () => number;
  private ready: Promise<void> | undefined;
  private closed = false;
  private readonly inFlight = new Set<Promise<unknown>>();
  private identity: StoreIdentity | undefined;
  private readonly reconnectTimeoutMs: number;
  private readonly closing = new AbortController();
  /** Set when close() has released everything; subscriptions then end with StoreClosedError. */
  private fullyClosed = false;
  private closeDone: Promise<void> | undefined;

  private constructor(options: PostgresEventStoreOptions) {
    if (typeof options !== 'object' || options === null) throw new InvalidOptionError('options', 'expected { connectionString }');
    if (typeof options.connectionString !== 'string' || options.connectionString.trim() === '') {
      throw new InvalidOptionError('connectionString', 'expected a PostgreSQL connection string, e.g. postgresql://user@host:5432/database');
    }
    const schema = options.schema ?? DEFAULT_POSTGRES_SCHEMA;
    if (!isPostgresSchemaName(schema)) {
      throw new InvalidOptionError('schema', `expected a lower-case SQL identifier ([a-z_][a-z0-9_]*, at most 63 characters), got ${JSON.stringify(schema)}`);
    }
    const poolSize = positiveInteger(options.poolSize, 'poolSize', 10);
    const connectionTimeoutMs = positiveInteger(options.connectionTimeoutMs, 'connectionTimeoutMs', 5_000);
    const queryTimeoutMs = positiveInteger(options.queryTimeoutMs, 'queryTimeoutMs', 30_000);
    const fallbackMs = positiveInteger(options.fallbackPollIntervalMs, 'fallbackPollIntervalMs', 1_000);
    this.reconnectTimeoutMs = positiveInteger(options.reconnectTimeoutMs, 'reconnectTimeoutMs', 30_000);
    const tls = options.tls;
    if (tls !== undefined && typeof tls !== 'boolean' && (typeof tls !== 'object' || tls === null)) {
      throw new InvalidOptionError('tls', 'expected true, false or an object of TLS options');
    }
    this.schema = schema;
    this.now = options.now ?? Date.now;
    this.channel = `agent_ledger_${schema}`;
    const config: ClientConfig = {
      connectionString: options.connectionString,
      connectionTimeoutMillis: connectionTimeoutMs,
      // A connection neither answered nor reset (a partition) would leave a call, and close(), waiting for ever.
      query_timeout: queryTimeoutMs,
      // Every acknowledged append is on the server's disk (and on synchronous standbys, if configured), whatever the server's default.
      options: '-c synchronous_commit=on',
      ...(tls === undefined ? {} : { ssl: typeof tls === 'boolean' ? tls : { ...tls, ca: Array.isArray(tls.ca) ? [...tls.ca] : (tls.ca as string | undefined) } }),
    };
    this.pool = new Pool({ ...config, max: poolSize });
    // An idle pooled connection that dies (server restart) is dropped by the pool; the next call gets a new one or a translated error.
    this.pool.on('error', () => undefined);
    this.notifier = new ChangeNotifier((waiting) => this.listener.waiting(waiting));
    this.listener = new PostgresChangeListener(config, this.channel, () => this.notifier.notify(), fallbackMs);
  }

  /**
   * A store on the server at `options.connectionString`, without waiting: the
   * schema is created or checked before the first call (a server that cannot
   * be reached is reported by that call, `StoreUnavailableError`, and tried
   * again by the next one).
   * @throws InvalidOptionError for bad options.
   */
  static connect(options: PostgresEventStoreOptions): PostgresEventStore {
    return new PostgresEventStore(options);
  }

  /**
   * Connects and creates or checks the schema before returning.
   * @throws InvalidOptionError for bad options; StoreUnavailableError, StoreFailureError when the server cannot be used.
   */
  static async open(options: PostgresEventStoreOptions): Promise<PostgresEventStore> {
    const store = new PostgresEventStore(options);
    try {
      await store.ensureReady();
    } catch (error) {
      await store.close();
      throw error;
    }
    return store;
  }

  append(streamName: string, events: readonly EventData[], options: AppendOptions): Promise<AppendResult> {
    let prepared: PreparedAppend;
    try {
      prepared = prepareAppend(streamName, events, options);
      this.assertOpen();
    } catch (error) {
      return Promise.reject(error);
    }
    return this.write(`append to ${streamName}`, (client) => this.appendInTransaction(client, prepared));
  }

  async readStream(streamName: string, options?: ReadStreamOptions): Promise<ReadStreamResult> {
    assertValidStreamName(streamName);
    return this.withClient(`read ${streamName}`, async (client) => {
      // One snapshot for the state and the rows.
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      try {
        const plan = planStreamRead(streamName, await this.streamState(client, streamName), options);
        if (plan.kind === 'done') return plan.result;
        const order = plan.direction === Direction.FORWARDS ? 'ASC' : 'DESC';
        const rows = await client.query<RawEventRow>(
          `SELECT ${EVENT_COLUMNS} FROM ${this.schema}.events WHERE stream_name = $1 AND revision BETWEEN $2 AND $3 ORDER BY revision ${order} LIMIT $4`,
          [streamName, plan.from, plan.to, plan.limit],
        );
        return { streamExists: true, currentRevision: plan.currentRevision, events: rows.rows.map((r) => toRecordedEvent(toRow(r))) };
      } finally {
        await client.query('COMMIT');
      }
    });
  }

  readAll(options?: ReadAllOptions): AsyncIterable<RecordedEvent> {
    return readAllBySequence((cursor, direction, limit) => this.pageOfAll(cursor, direction, limit), options, () => this.assertOpen());
  }

  subscribeToStream(streamName: string, options: SubscribeToStreamOptions = {}): EventSubscription {
    assertValidStreamName(streamName);
    this.assertOpen();
    return subscribeToStreamBySequence(options, {
      notifier: this.notifier,
      isClosed: () => this.fullyClosed,
      readPage: (cursor: number, limit: number) =>
        this.bridged(() =>
          this.withClient(`subscribe to ${streamName}`, async (client) => {
            const result = await client.query<RawEventRow>(
              `SELECT ${EVENT_COLUMNS} FROM ${this.schema}.events WHERE stream_name = $1 AND revision > $2
                 AND revision >= coalesce((SELECT truncate_before FROM ${this.schema}.streams WHERE stream_name = $1), 0)
               ORDER BY revision ASC LIMIT $3`,
              [streamName, cursor, limit],
            );
            return streamSubscriptionPage(result.rows.map(toRow), cursor, limit);
          }),
        ),
    });
  }

  subscribeToAll(options: SubscribeToAllOptions = {}): EventSubscription {
    this.assertOpen();
    return subscribeToAllBySequence(options, (filter) => ({
        notifier: this.notifier,
        isClosed: () => this.fullyClosed,
        readPage: async (cursor: number, limit: number) => {
          const rows = await this.bridged(() => this.pageOfAll(cursor, Direction.FORWARDS, limit));
          return allSubscriptionPage(rows, cursor, limit, filter);
        },
    }));
  }

  deleteStream(streamName: string, options: DeleteStreamOptions = {}): Promise<void> {
    return this.delete(streamName, options, false);
  }

  tombstoneStream(streamName: string, options: DeleteStreamOptions = {}): Promise<void> {
    return this.delete(streamName, options, true);
  }

  async storeIdentity(): Promise<StoreIdentity> {
    this.assertOpen();
    if (this.identity) return { ...this.identity };
    const identity = await this.withClient('read the store identity', async (client) => {
      const result = await client.query<{ id: string; created_at: string }>(`SELECT id::text AS id, created_at FROM ${this.schema}.store_identity`);
      const row = result.rows[0];
      if (!row) throw new StoreFailureError('no-identity', `${this.schema}.store_identity is empty (the row is written with the schema: was it deleted?)`);
      return { id: row.id.toLowerCase(), createdAt: new Date(Number(row.created_at)) };
    });
    this.identity = identity;
    return { ...identity };
  }

  close(): Promise<void> {
    this.closeDone ??= this.release();
    return this.closeDone;
  }

  private async release(): Promise<void> {
    this.closed = true;
    this.closing.abort();
    await Promise.allSettled([...this.inFlight]); // accepted appends commit (or fail) before the pool ends
    try {
      this.notifier.close();
      await this.listener.close();
      await this.pool.end();
    } catch (error) {
      throw translatePostgresError(error, 'close');
    } finally {
      this.fullyClosed = true;
    }
  }

  // --- writes -------------------------------------------------------------

  private delete(streamName: string, options: DeleteStreamOptions, tombstone: boolean): Promise<void> {
    let expected: ExpectedRevision;
    try {
      expected = prepareDelete(streamName, options);
      this.assertOpen();
    } catch (error) {
      return Promise.reject(error);
    }
    return this.write(`${tombstone ? 'tombstone' : 'delete'} ${streamName}`, async (client) => {
      await this.lockHead(client);
      const state = await this.streamState(client, streamName);
      assertDeleteAllowed(streamName, await this.view(client, streamName, state, [], expected), expected);
      const last = state?.lastRevision ?? -1;
      await client.query(
        tombstone
          ? `INSERT INTO ${this.schema}.streams (stream_name, last_revision, tombstoned) VALUES ($1, $2, true)
             ON CONFLICT (stream_name) DO UPDATE SET tombstoned = true`
          : `INSERT INTO ${this.schema}.streams (stream_name, last_revision, truncate_before) VALUES ($1, $2, $3)
             ON CONFLICT (stream_name) DO UPDATE SET truncate_before = excluded.truncate_before`,
        tombstone ? [streamName, last] : [streamName, last, last + 1],
      );
      return undefined;
    });
  }

  private async appendInTransaction(client: PoolClient, append: PreparedAppend): Promise<AppendResult> {
    const { streamName, events, expectedRevision } = append;
    const first = await this.lockHead(client);
    const state = await this.streamState(client, streamName);
    const ids = events.map((e) => e.id);
    const decision = decideAppend(await this.view(client, streamName, state, ids, expectedRevision), ids, expectedRevision);
    switch (decision.kind) {
      case 'deleted':
        throw new StreamDeletedError(streamName);
      case 'conflict':
        throw new WrongExpectedRevisionError(streamName, expectedRevision, decision.actual);
      case 'idempotent': {
        const row = await client.query<{ position: string }>(`SELECT position FROM ${this.schema}.events WHERE stream_name = $1 AND revision = $2`, [
          streamName,
          decision.lastRevision,
        ]);
        return { nextExpectedRevision: BigInt(decision.lastRevision), position: toPosition(Number(row.rows[0]?.position)) };
      }
      case 'write': {
        const created = this.now();
        const n = events.length;
        await client.query(
          `INSERT INTO ${this.schema}.events (position, stream_name, revision, event_id, event_type, data, metadata, created_at)
           SELECT $1::bigint + i, $2, $3::bigint + i - 1, id::uuid, type, data, metadata, $4
           FROM unnest($5::text[], $6::text[], $7::text[], $8::text[]) WITH ORDINALITY AS e(id, type, data, metadata, i)`,
          [first, streamName, decision.firstRevision, created, ids, events.map((e) => e.type), events.map((e) => e.dataJson), events.map((e) => e.metadataJson)],
        );
        const lastRevision = decision.firstRevision + n - 1;
        await client.query(
          `INSERT INTO ${this.schema}.streams (stream_name, last_revision) VALUES ($1, $2)
           ON CONFLICT (stream_name) DO UPDATE SET last_revision = excluded.last_revision`,
          [streamName, lastRevision],
        );
        await client.query(`UPDATE ${this.schema}.log_head SET last_position = $1 WHERE singleton = 1`, [first + n]);
        await client.query('SELECT pg_notify($1, $2)', [this.channel, String(first + n)]);
        return { nextExpectedRevision: BigInt(lastRevision), position: toPosition(first + n) };
      }
    }
  }

  /**
   * Locks the single row of `log_head` until the transaction ends and returns
   * the last position assigned: every write transaction takes it first, so
   * writes are serialised and positions become visible in increasing order.
   */
  private async lockHead(client: PoolClient): Promise<number> {
    const head = await client.query<{ last_position: string }>(`SELECT last_position FROM ${this.schema}.log_head WHERE singleton = 1 FOR UPDATE`);
    return Number(head.rows[0]?.last_position);
  }

  /** Runs `work` in a write transaction (`work` takes the `log_head` lock first). */
  private write<T>(label: string, work: (client: PoolClient) => Promise<T>): Promise<T> {
    return this.withClient(label, async (client) => {
      await client.query('BEGIN');
      try {
        const value = await work(client);
        await client.query('COMMIT');
        return value;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined); // a lost connection rolls back on the server
        throw error;
      }
    });
  }

  /** Every call on a connection is tracked: close() waits for them before ending the pool (pg-pool drops a connect pending at its end). */
  private withClient<T>(label: string, work: (client: PoolClient) => Promise<T>): Promise<T> {
    try {
      this.assertOpen();
    } catch (error) {
      return Promise.reject(error);
    }
    return this.track(this.onClient(label, work));
  }

  private async onClient<T>(label: string, work: (client: PoolClient) => Promise<T>): Promise<T> {
    try {
      await this.ensureReady();
      return await this.useConnection(work);
    } catch (error) {
      throw translatePostgresError(error, label);
    }
  }

  /**
   * Runs `work` on a pooled connection. While it is checked out, the pool
   * does not listen to the connection's errors: a connection cut (server
   * restart) would be an unhandled 'error' event. It is recorded here (the
   * query in flight rejects with it too), and a connection that failed is
   * destroyed rather than returned to the pool half-way through a transaction.
   */
  private async useConnection<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    let broken: Error | undefined;
    const onError = (error: Error): void => void (broken ??= error);
    client.on('error', onError);
    try {
      return await work(client);
    } catch (error) {
      // The port's own refusals (a conflict, a deleted stream) leave the connection sound; a driver error may not.
      if (!(error instanceof EventStoreError)) broken ??= error instanceof Error ? error : new Error(String(error));
      throw error;
    } finally {
      client.removeListener('error', onError);
      client.release(broken);
    }
  }


  private ensureReady(): Promise<void> {
    this.ready ??= this.useConnection((client) => migrate(client, this.schema, this.now)).catch((error: unknown) => {
      this.ready = undefined; // the next call tries again
      throw translatePostgresError(error, `create or check the schema ${this.schema}`);
    });
    return this.ready;
  }


  /**
   * A subscription's page read, retried while the connection is lost (a
   * server restart, a network cut), with a back-off from 50 ms doubling to
   * 1 s, for at most `reconnectTimeoutMs` since the first failure; then, or
   * on any other error, the error ends the subscription.
   */
  private async bridged<T>(read: () => Promise<T>): Promise<T> {
    if (this.closed) {
      // A subscription woken while the store closes ends when the store is closed, not before close() returns.
      await this.closeDone;
      throw new StoreClosedError();
    }
    let since: number | undefined;
    let delay = 50;
    for (;;) {
      try {
        return await read();
      } catch (error) {
        const lost = error instanceof StoreUnavailableError && error.reason === StoreUnavailableReason.CONNECTION_LOST;
        since ??= Date.now();
        if (!lost || this.closed || Date.now() - since >= this.reconnectTimeoutMs) throw error;
        await abortableDelay(delay, this.closing.signal);
        delay = Math.min(delay * 2, 1_000);
      }
    }
  }

  private track<T>(promise: Promise<T>): Promise<T> {
    this.inFlight.add(promise);
    const done = (): void => void this.inFlight.delete(promise);
    promise.then(done, done);
    return promise;
  }

  // --- reads --------------------------------------------------------------

  private async pageOfAll(cursor: number, direction: Direction, limit: number): Promise<StoredEventRow[]> {
    return this.withClient('read $all', async (client) => {
      const forwards = direction === Direction.FORWARDS;
      const result = await client.query<RawEventRow>(
        `SELECT ${EVENT_COLUMNS} FROM ${this.schema}.events WHERE position ${forwards ? '>' : '<'} $1 ORDER BY position ${forwards ? 'ASC' : 'DESC'} LIMIT $2`,
        [Math.min(cursor, Number.MAX_SAFE_INTEGER), limit],
      );
      return result.rows.map(toRow);
    });
  }

  private async streamState(client: PoolClient, streamName: string): Promise<StreamState | undefined> {
    const result = await client.query<{ last_revision: string; truncate_before: string; tombstoned: boolean }>(
      `SELECT last_revision, truncate_before, tombstoned FROM ${this.schema}.streams WHERE stream_name = $1`,
      [streamName],
    );
    const row = result.rows[0];
    if (!row) return undefined;
    return { lastRevision: Number(row.last_revision), firstVisibleRevision: Number(row.truncate_before), tombstoned: row.tombstoned };
  }

  /**
   * The stream as `decideAppend` sees it. Its lookups are synchronous, so the
   * ids they may ask for are read beforehand, only when the decision may need
   * them (an append at the stream's exact revision needs none).
   */
  private async view(client: PoolClient, streamName: string, state: StreamState | undefined, ids: readonly string[], expected: ExpectedRevision): Promise<StreamView> {
    const first = state?.firstVisibleRevision ?? 0;
    const last = state?.lastRevision ?? -1;
    const byRevision = new Map<number, string>();
    const revisionById = new Map<string, number>();
    if (ids.length > 0 && last >= first) {
      if (expected === Expected.ANY || expected === Expected.STREAM_EXISTS) {
        const found = await client.query<{ event_id: string; revision: string }>(
          `SELECT event_id::text AS event_id, min(revision) AS revision FROM ${this.schema}.events
           WHERE stream_name = $1 AND event_id = ANY($2::uuid[]) AND revision >= $3 GROUP BY event_id`,
          [streamName, ids, first],
        );
        for (const row of found.rows) revisionById.set(row.event_id, Number(row.revision));
      } else {
        const expectedNumber = expected === Expected.NO_STREAM ? first - 1 : Number(expected);
        if (last > expectedNumber) {
          const found = await client.query<{ event_id: string; revision: string }>(
            `SELECT event_id::text AS event_id, revision FROM ${this.schema}.events WHERE stream_name = $1 AND revision BETWEEN $2 AND $3`,
            [streamName, Math.max(first, expectedNumber + 1), expectedNumber + ids.length],
          );
          for (const row of found.rows) byRevision.set(Number(row.revision), row.event_id);
        }
      }
    }
    return {
      tombstoned: state?.tombstoned ?? false,
      firstVisibleRevision: first,
      lastRevision: last,
      eventIdAt: (revision) => byRevision.get(revision),
      revisionOfEventId: (id) => revisionById.get(id),
    };
  }

  private assertOpen(): void {
    if (this.closed) throw new StoreClosedError();
  }
}

function toRow(raw: RawEventRow): StoredEventRow {
  return {
    position: Number(raw.position),
    stream_name: raw.stream_name,
    revision: Number(raw.revision),
    event_id: raw.event_id,
    event_type: raw.event_type,
    data: raw.data,
    metadata: raw.metadata,
    created_at: Number(raw.created_at),
  };
}

function toPosition(sequence: number): Position {
  return positionFromParts({ commit: BigInt(sequence), prepare: BigInt(sequence) });
}
