import { randomUUID } from 'node:crypto';
import { pg } from './pg-library';
import type { ClientConfig, Pool as PgPool, PoolClient, QueryResult } from 'pg';
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
import type { MultiStreamAppend, StreamAppend } from '../port/multi-stream-append';
import { EventStoreError } from '../port/errors/event-store-error';
import { InvalidOptionError } from '../port/errors/invalid-option.error';
import { StoreClosedError } from '../port/errors/store-closed.error';
import { StoreFailureError } from '../port/errors/store-failure.error';
import { StoreUnavailableError, StoreUnavailableReason } from '../port/errors/store-unavailable.error';
import type { ReadAllOptions, ReadStreamOptions, ReadStreamResult } from '../port/read-options';
import { Direction } from '../port/read-options';
import type { StoreIdentity } from '../port/store-identity';
import type { EventSubscription, SubscribeToAllOptions, SubscribeToStreamOptions } from '../port/subscription';
import { assertValidStreamName } from '../stream-name';
import { prepareAppend, prepareStreamAppends } from '../validation/validate-append';
import { checkedCall } from '../core/checked-call';
import { expectedBatchOf, outcomesOfExpectedBatch } from './expected-batch';
import { positiveInteger, prepareDelete } from '../validation/validate-options';
import { PostgresChangeListener } from './postgres-change-listener';
import { RecentCommits } from './recent-commits';
import type { PostgresEventStoreOptions } from './postgres-options';
import { DEFAULT_POSTGRES_SCHEMA, isPostgresSchemaName, postgresTlsParameterOf } from './postgres-options';
import { migrate } from './postgres-schema';
import { translatePostgresError } from './translate-postgres-error';
import type { ExpectedBatch } from './expected-batch';
import type { BatchPlan, EventLookup, FoundEvent, OperationOutcome, WriteOperation } from './write-batch';
import { lookupsFor, planBatch, streamsOf, takeBatch } from './write-batch';

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

/** A queued write and its caller's promise. */
interface WriteJob {
  readonly label: string;
  readonly operation: WriteOperation;
  readonly resolve: (value: AppendResult | readonly AppendResult[] | undefined) => void;
  readonly reject: (error: unknown) => void;
}

/** Counters of an open {@link PostgresEventStore}, for tests, benchmarks and diagnostics. */
export interface PostgresEventStoreStats {
  /** Write transactions (batches) run by this instance, committed or not. */
  readonly transactions: number;
  /** Write operations (appends, deletes) run by this instance. */
  readonly operations: number;
  /** Most operations grouped into one transaction so far. */
  readonly largestBatch: number;
  /** Batches written in one statement (`append_expected`: one round trip, one commit). */
  readonly inOneStatement: number;
  /**
   * Batches decided in TypeScript after a read of their streams (three round
   * trips or more): a delete, an `any` or `stream_exists` append, or a stream
   * not where its append expected it (a conflict, a repeat), which first cost
   * a call of `append_expected` that wrote nothing.
   */
  readonly decidedAfterRead: number;
  /** `$all` subscription pages answered from this store's own last commits, without a query ({@link PostgresEventStore} keeps them). */
  readonly pagesFromMemory: number;
}

/** The name of the prepared statement that calls `append_expected` (the fault tests watch for it on the wire). */
export const APPEND_EXPECTED_STATEMENT = 'agent-ledger-append-expected';

/**
 * The store's statements, each a named prepared statement (parsed and
 * planned once per pooled connection; a pool serves one store, so one
 * schema, and the names need not hold it).
 */
interface Statements {
  readonly appendExpected: PreparedStatement;
  readonly streamState: PreparedStatement;
  readonly streamForwards: PreparedStatement;
  readonly streamBackwards: PreparedStatement;
  readonly streamPage: PreparedStatement;
  readonly allForwards: PreparedStatement;
  readonly allBackwards: PreparedStatement;
  readonly lookUp: PreparedStatement;
  readonly writePlan: PreparedStatement;
}

/** A prepared statement's name (at most 63 bytes) with its text: spread into a query beside its values. */
interface PreparedStatement {
  readonly name: string;
  readonly text: string;
}

function statementsOf(s: string): Statements {
  const streamRead = (order: string): string =>
    `SELECT ${EVENT_COLUMNS} FROM ${s}.events WHERE stream_name = $1 AND revision BETWEEN $2 AND $3 ORDER BY revision ${order} LIMIT $4`;
  return {
    appendExpected: { name: APPEND_EXPECTED_STATEMENT, text: `SELECT ${s}.append_expected($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) AS written` },
    streamState: { name: 'agent-ledger-stream-state', text: `SELECT last_revision, truncate_before, tombstoned FROM ${s}.streams WHERE stream_name = $1` },
    streamForwards: { name: 'agent-ledger-stream-forwards', text: streamRead('ASC') },
    streamBackwards: { name: 'agent-ledger-stream-backwards', text: streamRead('DESC') },
    streamPage: { name: 'agent-ledger-stream-page', text: `SELECT ${EVENT_COLUMNS} FROM ${s}.events WHERE stream_name = $1 AND revision > $2
                   AND revision >= coalesce((SELECT truncate_before FROM ${s}.streams WHERE stream_name = $1), 0)
                 ORDER BY revision ASC LIMIT $3` },
    allForwards: { name: 'agent-ledger-all-forwards', text: `SELECT ${EVENT_COLUMNS} FROM ${s}.events WHERE position > $1 ORDER BY position ASC LIMIT $2` },
    allBackwards: { name: 'agent-ledger-all-backwards', text: `SELECT ${EVENT_COLUMNS} FROM ${s}.events WHERE position < $1 ORDER BY position DESC LIMIT $2` },
    lookUp: { name: 'agent-ledger-look-up', text: `SELECT e.stream_name, e.event_id::text AS event_id, e.revision, e.position
               FROM unnest($1::text[], $2::uuid[], $3::bigint[]) AS q(stream_name, event_id, first)
               JOIN ${s}.events e ON e.stream_name = q.stream_name AND e.event_id = q.event_id AND e.revision >= q.first
             UNION ALL
             SELECT e.stream_name, e.event_id::text, e.revision, e.position
               FROM unnest($4::text[], $5::bigint[], $6::bigint[]) AS q(stream_name, lo, hi)
               JOIN ${s}.events e ON e.stream_name = q.stream_name AND e.revision BETWEEN q.lo AND q.hi` },
    // The notification only when events were written and a store other than this one listens (see postgres-schema.ts).
    writePlan: { name: 'agent-ledger-write-plan', text: `WITH appended AS (
         INSERT INTO ${s}.events (position, stream_name, revision, event_id, event_type, data, metadata, created_at)
         SELECT position, stream_name, revision, event_id, event_type, data, metadata, $8::bigint
         FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::uuid[], $5::text[], $6::text[], $7::text[])
           AS e(position, stream_name, revision, event_id, event_type, data, metadata)
         RETURNING 1
       ), streams AS (
         INSERT INTO ${s}.streams (stream_name, last_revision, truncate_before, tombstoned)
         SELECT * FROM unnest($9::text[], $10::bigint[], $11::bigint[], $12::boolean[])
         ON CONFLICT (stream_name) DO UPDATE
           SET last_revision = excluded.last_revision, truncate_before = excluded.truncate_before, tombstoned = excluded.tombstoned
         RETURNING 1
       ), head AS (
         UPDATE ${s}.log_head SET last_position = $13 WHERE singleton = 1 RETURNING 1
       )
       SELECT pg_notify($14, $15) WHERE $16 AND EXISTS (SELECT 1 FROM ${s}.listeners WHERE id IS DISTINCT FROM $17::uuid)` },
  };
}

/**
 * The PostgreSQL event store, on node-postgres with a pool.
 *
 * - Global order without gaps: every write transaction first locks the single
 *   row of `log_head` (`SELECT ... FOR UPDATE`) and assigns positions from it,
 *   so writes are serialised and commit in position order; a reader that sees
 *   position p sees every position below p (docs/event-store.md, "PostgreSQL adapter").
 * - Group commit: the writes (appends, deletes) made while this store's
 *   previous batch runs form the next batch, one transaction (at most one
 *   write per stream; `maxBatchSize` writes). Each write is decided on its
 *   own, so a refused one fails alone; every promise settles after the COMMIT.
 * - Live subscriptions are woken by LISTEN/NOTIFY ({@link PostgresChangeListener}),
 *   with a slow fallback tick while they wait. A write notifies only when
 *   another store listens: this store's own commits wake its subscriptions
 *   in-process, and its `$all` subscriptions read the events it just
 *   committed from memory ({@link RecentCommits}) rather than from the server.
 * - Every statement on the hot paths is a named prepared statement.
 * - The schema (option `schema`) is created or migrated before the first call.
 * - Every node-postgres error is translated by {@link translatePostgresError}.
 */
export class PostgresEventStore implements EventStore, MultiStreamAppend {
  /** The schema holding the store's tables. */
  readonly schema: string;
  private readonly pool: PgPool;
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
  private readonly groupCommit: boolean;
  private readonly maxBatchSize: number;
  private readonly queue: WriteJob[] = [];
  private batchRunning = false;
  private flushScheduled = false;
  private readonly counters = { transactions: 0, operations: 0, largestBatch: 0, inOneStatement: 0, decidedAfterRead: 0, pagesFromMemory: 0 };
  /** The log head after this store's last commit that woke its subscriptions itself. */
  private notifiedUpTo = 0;
  private readonly statements: Statements;
  /** This store's id in the schema's `listeners` table; its writes name it so as not to notify it. */
  private readonly listenerId = randomUUID();
  private readonly recent = new RecentCommits();

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
    if (options.groupCommit !== undefined && typeof options.groupCommit !== 'boolean') {
      throw new InvalidOptionError('groupCommit', `expected true or false, got ${String(options.groupCommit)}`);
    }
    this.groupCommit = options.groupCommit ?? true;
    this.maxBatchSize = positiveInteger(options.maxBatchSize, 'maxBatchSize', 256);
    const tls = options.tls;
    if (tls !== undefined && typeof tls !== 'boolean' && (typeof tls !== 'object' || tls === null)) {
      throw new InvalidOptionError('tls', 'expected true, false or an object of TLS options');
    }
    const tlsParameter = postgresTlsParameterOf(options.connectionString);
    if (tls !== undefined && tlsParameter !== undefined) {
      throw new InvalidOptionError(
        'tls',
        `must not be given with a connection string that has a TLS parameter (${tlsParameter}=), which node-postgres would let replace it (sslmode=disable would turn TLS off): configure TLS in one place`,
      );
    }
    this.schema = schema;
    this.now = options.now ?? Date.now;
    this.channel = `agent_ledger_${schema}`;
    this.statements = statementsOf(schema);
    const config: ClientConfig = {
      connectionString: options.connectionString,
      connectionTimeoutMillis: connectionTimeoutMs,
      // A connection neither answered nor reset (a partition) would leave a call, and close(), waiting for ever.
      query_timeout: queryTimeoutMs,
      // Every acknowledged append is on the server's disk (and on synchronous standbys, if configured), whatever the server's default.
      options: '-c synchronous_commit=on',
      ...(tls === undefined ? {} : { ssl: typeof tls === 'boolean' ? tls : { ...tls, ca: Array.isArray(tls.ca) ? [...tls.ca] : (tls.ca as string | undefined) } }),
    };
    this.pool = new (pg().Pool)({ ...config, max: poolSize });
    // An idle pooled connection that dies (server restart) is dropped by the pool; the next call gets a new one or a translated error.
    this.pool.on('error', () => undefined);
    // A new connection is handed out from inside the socket read that completed its start-up: a termination (57P01) in
    // the same read reaches it before useConnection listens (a microtask later), as an unhandled 'error' event. Every
    // connection listens from birth; useConnection still records the error (the connection is then destroyed).
    this.pool.on('connect', (client) => client.on('error', () => undefined));
    this.notifier = new ChangeNotifier((waiting) => this.listener.waiting(waiting));
    this.listener = new PostgresChangeListener(config, this.channel, (head) => this.changed(head), fallbackMs, {
      schema,
      id: this.listenerId,
      ready: () => this.ensureReady(),
      now: this.now,
    });
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
    return checkedCall(
      () => this.opened(prepareAppend(streamName, events, options)),
      (prepared) => this.enqueue(`append to ${streamName}`, { kind: 'append', append: prepared }) as Promise<AppendResult>,
    );
  }

  /** Appends to several streams in one transaction ({@link MultiStreamAppend}); it shares a group commit's batch like any append. */
  appendToStreams(appends: readonly StreamAppend[]): Promise<AppendResult[]> {
    return checkedCall(
      () => this.opened(prepareStreamAppends(appends)),
      (prepared) =>
        this.enqueue(`append to ${prepared.map((part) => part.streamName).join(', ')}`, { kind: 'appendToStreams', appends: prepared }) as Promise<AppendResult[]>,
    );
  }

  async readStream(streamName: string, options?: ReadStreamOptions): Promise<ReadStreamResult> {
    assertValidStreamName(streamName);
    return this.withClient(`read ${streamName}`, async (client) => {
      // No transaction needed: the rows up to the stream's last revision read first were committed with it (or before),
      // and event rows are never updated nor deleted, so the second read gives the rows the first one's moment had.
      const plan = planStreamRead(streamName, await this.streamState(client, streamName), options);
      if (plan.kind === 'done') return plan.result;
      const forwards = plan.direction === Direction.FORWARDS;
      const rows = await client.query<RawEventRow>({
        ...(forwards ? this.statements.streamForwards : this.statements.streamBackwards),
        values: [streamName, plan.from, plan.to, plan.limit],
      });
      return { streamExists: true, currentRevision: plan.currentRevision, events: rows.rows.map((r) => toRecordedEvent(toRow(r))) };
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
            const result = await client.query<RawEventRow>({ ...this.statements.streamPage, values: [streamName, cursor, limit] });
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
          // Closing, the read goes through bridged(), which ends the subscription once the store is closed (the notifier,
          // closed first, no longer makes it wait: a page from memory would loop without yielding to the event loop).
          const remembered = this.closed ? undefined : this.recent.page(cursor, limit);
          if (remembered !== undefined) this.counters.pagesFromMemory++;
          const rows = remembered ?? (await this.bridged(() => this.pageOfAll(cursor, Direction.FORWARDS, limit)));
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

  /** Counters of this instance. */
  stats(): PostgresEventStoreStats {
    return { ...this.counters };
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
    return checkedCall(
      () => this.opened(prepareDelete(streamName, options)),
      (expectedRevision) => this.enqueue(`${tombstone ? 'tombstone' : 'delete'} ${streamName}`, { kind: 'delete', streamName, expectedRevision, tombstone }) as Promise<void>,
    );
  }

  /**
   * Queues a write. With group commit, one batch runs at a time per store
   * and the writes made meanwhile wait for the next one; without, each write
   * is a batch of its own, run at once.
   */
  private enqueue(label: string, operation: WriteOperation): Promise<AppendResult | readonly AppendResult[] | undefined> {
    const accepted = new Promise<AppendResult | readonly AppendResult[] | undefined>((resolve, reject) => {
      const job: WriteJob = { label, operation, resolve, reject };
      if (!this.groupCommit) {
        void this.runBatch([job]);
        return;
      }
      this.queue.push(job);
      if (!this.batchRunning && !this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => this.pump());
      }
    });
    return this.track(accepted); // close() waits for it: an accepted write commits (or fails) before the pool ends
  }

  /** Runs the next batch if none is running. */
  private pump(): void {
    this.flushScheduled = false;
    if (this.batchRunning || this.queue.length === 0) return;
    const batch = takeBatch(this.queue, this.maxBatchSize, (job) => streamsOf(job.operation));
    this.batchRunning = true;
    void this.runBatch(batch).finally(() => {
      this.batchRunning = false;
      this.pump();
    });
  }

  /**
   * Runs a batch in one transaction and settles its writes. A write refused
   * by the rules fails alone; a driver or connection error fails every write
   * of the batch with the translated error (nothing of it committed, or, when
   * the connection is lost during COMMIT, unknown: `connectionLost`, and a
   * retry with the same event ids is idempotent).
   */
  private async runBatch(batch: readonly WriteJob[]): Promise<void> {
    this.counters.transactions++;
    this.counters.operations += batch.length;
    this.counters.largestBatch = Math.max(this.counters.largestBatch, batch.length);
    const operations = batch.map((job) => job.operation);
    let plan: Pick<BatchPlan, 'outcomes' | 'lastPosition'> & { readonly rows: readonly StoredEventRow[]; readonly head: number };
    const since = this.recent.begin();
    try {
      await this.ensureReady();
      plan = await this.useConnection(async (client) => {
        const written = await this.expectedBatch(client, operations);
        if (written !== null) return written;
        return this.batchInTransaction(client, operations);
      });
    } catch (error) {
      // The batch may have committed all the same (an answer lost with the connection): its events are not in memory.
      this.recent.doubt();
      for (const job of batch) job.reject(translatePostgresError(error, batch.length === 1 ? job.label : `${job.label} (one of a batch of ${batch.length} writes)`));
      return;
    }
    batch.forEach((job, i) => {
      const outcome = plan.outcomes[i] as OperationOutcome;
      if (outcome.ok) job.resolve(outcome.value);
      else job.reject(outcome.error);
    });
    if (plan.rows.length > 0) {
      this.recent.committed(since, plan.head, plan.rows);
      this.changed(undefined, plan.lastPosition);
    }
  }

  /**
   * The batch in one statement when every operation appends at an exact
   * expected revision (`append_expected`, in autocommit: one round trip, one
   * commit); null when it is not such a batch, or when a stream is not where
   * its append expects it (nothing was written: the batch is then decided
   * in TypeScript, which tells a conflict from a repeat).
   */
  private async expectedBatch(client: PoolClient, operations: readonly WriteOperation[]): Promise<WrittenBatch | null> {
    const batch = expectedBatchOf(operations);
    if (batch === null) return null;
    const createdAt = this.now();
    const answer = await client.query<{ written: string[] | null }>({
      ...this.statements.appendExpected,
      values: [batch.streams, batch.expected, batch.counts, batch.parts, batch.offsets, batch.ids, batch.types, batch.data, batch.metadata, createdAt, this.channel, this.listenerId],
    });
    const written = answer.rows[0]?.written ?? null;
    if (written === null) return null;
    this.counters.inOneStatement++;
    const [head, ...firsts] = written.map(Number) as [number, ...number[]];
    return { ...outcomesOfExpectedBatch(operations, head, firsts), head, rows: rowsOfExpectedBatch(batch, head, firsts, createdAt) };
  }

  /**
   * One batch's transaction: lock the log head; read the streams' states,
   * then the events the decisions may need; decide in TypeScript; write every
   * event, the streams' rows and the head in one statement, with the
   * notification; commit.
   */
  private async batchInTransaction(client: PoolClient, operations: readonly WriteOperation[]): Promise<WrittenBatch> {
    this.counters.decidedAfterRead++;
    const s = this.schema;
    // The lock is a statement of its own, before the read of the streams: in READ COMMITTED each statement reads a
    // snapshot taken when it starts, so the read sees every batch committed before this one got the lock. One round
    // trip for the three (a simple query: the stream names are literals, escaped by the driver).
    const names = operations.flatMap((operation) => streamsOf(operation).map((name) => client.escapeLiteral(name)));
    const begun = (await client.query(
      `BEGIN; SELECT last_position FROM ${s}.log_head WHERE singleton = 1 FOR UPDATE;
       SELECT stream_name, last_revision, truncate_before, tombstoned FROM ${s}.streams WHERE stream_name = ANY(ARRAY[${names.join(', ')}]::text[])`,
    )) as unknown as [QueryResult, QueryResult<{ last_position: string }>, QueryResult<{ stream_name: string; last_revision: string; truncate_before: string; tombstoned: boolean }>];
    try {
      const lastPosition = Number(begun[1].rows[0]?.last_position);
      const stateRows = begun[2];
      const states = new Map<string, StreamState>();
      for (const row of stateRows.rows) {
        states.set(row.stream_name, { lastRevision: Number(row.last_revision), firstVisibleRevision: Number(row.truncate_before), tombstoned: row.tombstoned });
      }
      const found = await this.lookUp(client, operations.flatMap((operation) => lookupsFor(operation, states)));
      const plan = planBatch(operations, lastPosition, states, found);
      const createdAt = this.now();
      if (plan.streams.length > 0) await this.writePlan(client, plan, createdAt);
      await client.query('COMMIT');
      const rows = plan.events.map(
        (e): StoredEventRow => ({ position: e.position, stream_name: e.streamName, revision: e.revision, event_id: e.eventId, event_type: e.type, data: e.data, metadata: e.metadata, created_at: createdAt }),
      );
      return { outcomes: plan.outcomes, lastPosition: plan.lastPosition, head: lastPosition, rows };
    } catch (error) {
      // After a driver error the connection is destroyed (useConnection), which ends the transaction on the server: a
      // ROLLBACK sent on a connection that no longer answers (a partition) would only wait one more queryTimeoutMs.
      if (error instanceof EventStoreError) await client.query('ROLLBACK');
      throw error;
    }
  }

  /** The events the lookups ask for, by stream, in one query. */
  private async lookUp(client: PoolClient, lookups: readonly EventLookup[]): Promise<Map<string, FoundEvent[]>> {
    const found = new Map<string, FoundEvent[]>();
    if (lookups.length === 0) return found;
    const byId = { streams: [] as string[], ids: [] as string[], from: [] as number[] };
    const byRevision = { streams: [] as string[], from: [] as number[], to: [] as number[] };
    for (const lookup of lookups) {
      if (lookup.kind === 'ids') {
        for (const id of lookup.ids) {
          byId.streams.push(lookup.streamName);
          byId.ids.push(id);
          byId.from.push(lookup.fromRevision);
        }
      } else {
        byRevision.streams.push(lookup.streamName);
        byRevision.from.push(lookup.from);
        byRevision.to.push(lookup.to);
      }
    }
    const rows = await client.query<{ stream_name: string; event_id: string; revision: string; position: string }>({
      ...this.statements.lookUp,
      values: [byId.streams, byId.ids, byId.from, byRevision.streams, byRevision.from, byRevision.to],
    });
    for (const row of rows.rows) {
      const list = found.get(row.stream_name) ?? [];
      list.push({ eventId: row.event_id.toLowerCase(), revision: Number(row.revision), position: Number(row.position) });
      found.set(row.stream_name, list);
    }
    return found;
  }

  /** Writes a decided batch in one statement: the events, the streams' rows, the log head, and the notification when events were written. */
  private async writePlan(client: PoolClient, plan: BatchPlan, createdAt: number): Promise<void> {
    const e = plan.events;
    const st = plan.streams;
    await client.query({
      ...this.statements.writePlan,
      values: [
        e.map((r) => r.position),
        e.map((r) => r.streamName),
        e.map((r) => r.revision),
        e.map((r) => r.eventId),
        e.map((r) => r.type),
        e.map((r) => r.data),
        e.map((r) => r.metadata),
        createdAt,
        st.map((r) => r.streamName),
        st.map((r) => r.lastRevision),
        st.map((r) => r.truncateBefore),
        st.map((r) => r.tombstoned),
        plan.lastPosition,
        this.channel,
        String(plan.lastPosition),
        e.length > 0,
        this.listenerId,
      ],
    });
  }

  /** Every call on a connection is tracked: close() waits for them before ending the pool (pg-pool drops a connect pending at its end). */
  private withClient<T>(label: string, work: (client: PoolClient) => Promise<T>): Promise<T> {
    return checkedCall(
      () => this.assertOpen(),
      () => this.track(this.onClient(label, work)),
    );
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

  /**
   * Wakes the subscriptions: at once after this store's own commit (no need
   * to wait for the notification's round trip), then not again for that
   * commit's notification; for any other notification or wake-up.
   */
  private changed(notifiedHead: number | undefined, committedHead?: number): void {
    if (committedHead !== undefined) this.notifiedUpTo = Math.max(this.notifiedUpTo, committedHead);
    else if (notifiedHead !== undefined && Number.isFinite(notifiedHead)) {
      this.recent.heard(notifiedHead);
      if (notifiedHead <= this.notifiedUpTo) return;
    } else this.recent.doubt();
    this.notifier.notify();
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
      const result = await client.query<RawEventRow>({
        ...(forwards ? this.statements.allForwards : this.statements.allBackwards),
        values: [Math.min(cursor, Number.MAX_SAFE_INTEGER), limit],
      });
      return result.rows.map(toRow);
    });
  }

  private async streamState(client: PoolClient, streamName: string): Promise<StreamState | undefined> {
    const result = await client.query<{ last_revision: string; truncate_before: string; tombstoned: boolean }>({
      ...this.statements.streamState,
      values: [streamName],
    });
    const row = result.rows[0];
    if (!row) return undefined;
    return { lastRevision: Number(row.last_revision), firstVisibleRevision: Number(row.truncate_before), tombstoned: row.tombstoned };
  }

  /** `checked`, once the store is found open. */
  private opened<C>(checked: C): C {
    this.assertOpen();
    return checked;
  }

  private assertOpen(): void {
    if (this.closed) throw new StoreClosedError();
  }
}

/** A batch written: each operation's outcome, the log head before it and after it, and the event rows it wrote. */
interface WrittenBatch extends Pick<BatchPlan, 'outcomes' | 'lastPosition'> {
  readonly head: number;
  readonly rows: readonly StoredEventRow[];
}

/** The rows `append_expected` wrote for `batch`: positions after `head` in the events' order, revisions from each part's first. */
function rowsOfExpectedBatch(batch: ExpectedBatch, head: number, firsts: readonly number[], createdAt: number): StoredEventRow[] {
  return batch.ids.map((id, i): StoredEventRow => {
    const part = (batch.parts[i] as number) - 1;
    return {
      position: head + i + 1,
      stream_name: batch.streams[part] as string,
      revision: (firsts[part] as number) + (batch.offsets[i] as number),
      event_id: id,
      event_type: batch.types[i] as string,
      data: batch.data[i] as string,
      metadata: batch.metadata[i] as string,
      created_at: createdAt,
    };
  });
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
