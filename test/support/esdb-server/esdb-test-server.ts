import { Server, ServerCredentials } from '@grpc/grpc-js';
import type { status } from '@grpc/grpc-js';
import { GossipService } from '@eventstore/db-client/generated/gossip_grpc_pb';
import { PersistentSubscriptionsService } from '@eventstore/db-client/generated/persistent_grpc_pb';
import { ServerFeaturesService } from '@eventstore/db-client/generated/serverfeatures_grpc_pb';
import { StreamsService } from '@eventstore/db-client/generated/streams_grpc_pb';

import { AppendConflicts } from './append-conflicts';
import type { AppendConflictStats } from './append-conflicts';
import { DEFAULT_MAX_APPEND_SIZE } from './append-size';
import { EsdbTestServerError } from './esdb-test-server-error';
import { EventLog } from './event-log';
import { FaultInjector } from './fault-injector';
import { createGossipService } from './gossip-service';
import { OpenCalls } from './open-calls';
import { PersistentSubscriptions } from './persistent-subscriptions';
import { createPersistentSubscriptionsService } from './persistent-subscriptions-service';
import { serverShuttingDownError } from './rpc-errors';
import { createServerFeaturesService } from './server-features-service';
import { createStreamsService } from './streams-service';

/** Options of {@link startEsdbTestServer}. */
export interface EsdbTestServerOptions {
  /**
   * Port to listen on; 0 picks a free one, which is then kept for every restart.
   * @default 0
   */
  readonly port?: number;
  /**
   * Interface to bind and to advertise in the connection string and in gossip.
   * @default '127.0.0.1'
   */
  readonly host?: string;
  /**
   * Clock for the `created` timestamp of events, in ms since the Unix epoch.
   * @default Date.now
   */
  readonly clock?: () => number;
  /**
   * How long `stop()` waits for connections to close gracefully before forcing them.
   * @default 2000
   */
  readonly shutdownTimeoutMs?: number;
  /**
   * Period of the persistent subscriptions' clock, which checks message timeouts and writes timed
   * checkpoints (the real server ticks every second).
   * @default 1000
   */
  readonly persistentSubscriptionTickMs?: number;
  /**
   * Largest append accepted (data + metadata bytes + 2 bytes per character of the type, summed
   * over the events of one append), as the server's `MaxAppendSize` option.
   * @default 1048576 (the real server's default)
   */
  readonly maxAppendSize?: number;
}

/**
 * A running protocol-level EventStoreDB test double. The data lives as long as this object:
 * `stop()` then `start()` (or `restart()`) brings the server back on the same port with every
 * event, to simulate an outage.
 */
export interface EsdbTestServer {
  /** `esdb://<host>:<port>?tls=false`: a single-node, insecure connection string for `EventStoreDBClient.connectionString`. */
  readonly connectionString: string;
  readonly host: string;
  readonly port: number;
  /** Whether the gRPC server is currently accepting calls. */
  readonly isRunning: boolean;
  /**
   * Number of calls the server would have to end on stop: subscriptions, persistent subscription
   * members, batch-append streams, and appends held by {@link delayNextAppends}.
   */
  readonly openCallCount: number;
  /**
   * Ends every open call with UNAVAILABLE ("Server is shutting down"), then shuts the gRPC
   * server down. Clients see a clean UNAVAILABLE on their subscriptions and reconnect on their
   * next call. Idempotent.
   */
  stop(): Promise<void>;
  /** Starts the server again on the same host and port, with the same data. Idempotent. */
  start(): Promise<void>;
  /** `stop()` then `start()`. */
  restart(): Promise<void>;
  /**
   * Fault hook: the next `count` appends (`Append` calls or `BatchAppend` commits) fail with
   * `code` and write nothing. A failing `BatchAppend` commit ends the whole batch-append call,
   * like a dropped connection would.
   * @default code `status.UNAVAILABLE`
   */
  failNextAppends(count: number, code?: status): void;
  /**
   * Fault hook: the next `count` appends wait `delayMs` before being written, like a slow node.
   * The client's deadline is honoured: an `Append` whose deadline passes is not written (the
   * client sees `DeadlineExceededError`); a `BatchAppend` commit whose `deadline` passes is
   * answered with the server's `Timeout` status (also `DeadlineExceededError`), nothing written.
   */
  delayNextAppends(count: number, delayMs: number): void;
  /** Drops every pending append fault and delay. */
  clearFaults(): void;
  /**
   * The appends refused with a wrong expected revision since the server was created (restarts
   * included), per stream and per proposed event type: e.g. the claims (`RunClaimed`) that lost
   * a race, per run stream.
   */
  appendConflicts(): AppendConflictStats;
}

/**
 * Starts an in-process gRPC server that speaks EventStoreDB's client protocol well enough for
 * the real `@eventstore/db-client` (see docs/esdb-test-server.md for what it emulates).
 *
 * @example
 * const server = await startEsdbTestServer();
 * const client = EventStoreDBClient.connectionString(server.connectionString);
 * // ...
 * await client.dispose();
 * await server.stop();
 */
export async function startEsdbTestServer(options: EsdbTestServerOptions = {}): Promise<EsdbTestServer> {
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new EsdbTestServerError('invalid-option', `options.port must be an integer in [0, 65535], got ${String(port)}`);
  }
  const tickMs = options.persistentSubscriptionTickMs ?? 1_000;
  if (!Number.isFinite(tickMs) || tickMs <= 0) {
    throw new EsdbTestServerError('invalid-option', `options.persistentSubscriptionTickMs must be a positive number, got ${String(tickMs)}`);
  }
  const maxAppendSize = options.maxAppendSize ?? DEFAULT_MAX_APPEND_SIZE;
  if (!Number.isSafeInteger(maxAppendSize) || maxAppendSize <= 0) {
    throw new EsdbTestServerError('invalid-option', `options.maxAppendSize must be a positive integer, got ${String(maxAppendSize)}`);
  }
  const clock = options.clock ?? Date.now;
  const log = new EventLog(clock);
  const subscriptions = new PersistentSubscriptions(log, Date.now, tickMs);
  const server = new EsdbTestServerImpl(
    options.host ?? '127.0.0.1',
    port,
    log,
    subscriptions,
    options.shutdownTimeoutMs ?? 2_000,
    maxAppendSize,
  );
  await server.start();
  return server;
}

class EsdbTestServerImpl implements EsdbTestServer {
  private server: Server | undefined;
  private openCalls = new OpenCalls();
  private readonly faults = new FaultInjector();
  private readonly conflicts = new AppendConflicts();
  private readonly instanceId = globalThis.crypto.randomUUID();
  private transition: Promise<void> = Promise.resolve();

  constructor(
    readonly host: string,
    private boundPort: number,
    private readonly log: EventLog,
    private readonly subscriptions: PersistentSubscriptions,
    private readonly shutdownTimeoutMs: number,
    private readonly maxAppendSize: number,
  ) {}

  get port(): number {
    return this.boundPort;
  }

  get connectionString(): string {
    return `esdb://${this.host}:${this.boundPort}?tls=false`;
  }

  get isRunning(): boolean {
    return this.server !== undefined;
  }

  get openCallCount(): number {
    return this.openCalls.size;
  }

  start(): Promise<void> {
    return this.serialize(() => this.doStart());
  }

  stop(): Promise<void> {
    return this.serialize(() => this.doStop());
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  failNextAppends(count: number, code?: status): void {
    this.faults.failNextAppends(count, code);
  }

  delayNextAppends(count: number, delayMs: number): void {
    this.faults.delayNextAppends(count, delayMs);
  }

  clearFaults(): void {
    this.faults.clear();
  }

  appendConflicts(): AppendConflictStats {
    return this.conflicts.snapshot();
  }

  /** Runs lifecycle transitions one after the other, so overlapping stop/start calls cannot interleave. */
  private serialize(step: () => Promise<void>): Promise<void> {
    const next = this.transition.then(step, step);
    this.transition = next.catch(() => undefined);
    return next;
  }

  private async doStart(): Promise<void> {
    if (this.server !== undefined) return;
    const server = new Server();
    this.openCalls = new OpenCalls();
    const context = { log: this.log, openCalls: this.openCalls, faults: this.faults, conflicts: this.conflicts, maxAppendSize: this.maxAppendSize };
    server.addService(StreamsService, createStreamsService(context));
    server.addService(PersistentSubscriptionsService, createPersistentSubscriptionsService({ subscriptions: this.subscriptions, openCalls: this.openCalls }));
    server.addService(ServerFeaturesService, createServerFeaturesService());
    server.addService(GossipService, createGossipService(() => ({ host: this.host, port: this.boundPort }), this.instanceId));
    const port = await new Promise<number>((resolve, reject) => {
      server.bindAsync(`${this.host}:${this.boundPort}`, ServerCredentials.createInsecure(), (error, bound) =>
        error ? reject(new EsdbTestServerError('bind-failed', `cannot listen on ${this.host}:${this.boundPort}: ${error.message}`, error)) : resolve(bound),
      );
    });
    this.boundPort = port;
    this.server = server;
    this.subscriptions.start();
  }

  private async doStop(): Promise<void> {
    const server = this.server;
    if (server === undefined) return;
    this.server = undefined;
    this.subscriptions.stop();
    await this.openCalls.abortAll(serverShuttingDownError());
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        server.forceShutdown();
        resolve();
      }, this.shutdownTimeoutMs);
      server.tryShutdown(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}
