/**
 * What the crash checks read: the events of the stores (read directly with
 * the product's store classes: the SQLite file as it is on disk, or
 * EventStoreDB through its adapter) and the execution ledger the test tools
 * wrote outside the product.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { EventStore, Position, RecordedEvent } from '@agent-ledger/event-store';
import { createEventStore, PostgresEventStore, SqliteEventStore } from '@agent-ledger/event-store';
import type { LedgerLine } from '../../../apps/agent-ledger/src/config/crash-test/test-ledger.tools';
import type { McpExecution, McpFiles } from './mcp-workload';
import { mcpLedgerLines, readMcpExecutions } from './mcp-workload';

/** One event as the checks use it. */
export interface HistoryEvent {
  readonly type: string;
  readonly revision: number;
  readonly position: string;
  readonly data: Record<string, unknown>;
}

/** Every run's and every audit stream's events, and the ledger. */
export interface History {
  /** `run-<runId>` streams, by run id, in revision order. */
  readonly runs: ReadonlyMap<string, readonly HistoryEvent[]>;
  /** `audit-<runId>` streams, by run id, in revision order. */
  readonly audits: ReadonlyMap<string, readonly HistoryEvent[]>;
  /** The position of the last `run`/`audit` event of each store (null when empty), by store ({@link StoreFiles.runStore}, {@link StoreFiles.auditStorePath}). */
  readonly heads: Readonly<Record<string, Position | null>>;
  readonly ledger: readonly LedgerLine[];
  /** Ledger lines that could not be read (a violation of the harness's own premise). */
  readonly unreadableLedgerLines: readonly string[];
  /** The MCP server's executions, when the scenario's writes are MCP calls (also in {@link ledger}, as lines of `m.<tool>`). */
  readonly mcp?: { readonly executions: readonly McpExecution[]; readonly unreadable: readonly string[] };
}

/** The files a scenario's processes write. */
export interface StoreFiles {
  /**
   * The run store: the embedded store's file, an EventStoreDB connection
   * string (`esdb://...`), or a PostgreSQL location (`postgresql://...#schema=<schema>`, {@link postgresLocation}).
   */
  readonly runStore: string;
  /** The audit store's file, when the audit streams are kept apart. */
  readonly auditStorePath: string | null;
  readonly ledgerPath: string;
  /** The MCP server's files, when the scenario's writes are MCP calls (`mcp-workload.ts`). */
  readonly mcp?: McpFiles;
}

/** Reads both stores and the ledger as they are now. */
export async function readHistory(files: StoreFiles): Promise<History> {
  const runs = new Map<string, HistoryEvent[]>();
  const audits = new Map<string, HistoryEvent[]>();
  const heads: Record<string, Position | null> = {};
  for (const path of [files.runStore, ...(files.auditStorePath === null ? [] : [files.auditStorePath])]) {
    heads[path] = null;
    if (!isServerStore(path) && !existsSync(path)) continue;
    const store = openStoreAt(path);
    try {
      for await (const event of store.readAll()) {
        const into = event.streamName.startsWith('run-') ? runs : event.streamName.startsWith('audit-') ? audits : null;
        if (into === null) continue;
        const id = event.streamName.slice(event.streamName.indexOf('-') + 1);
        const list = into.get(id) ?? [];
        list.push(toHistoryEvent(event));
        into.set(id, list);
        heads[path] = event.position;
      }
    } finally {
      await store.close();
    }
  }
  for (const list of [...runs.values(), ...audits.values()]) list.sort((a, b) => a.revision - b.revision);
  const { ledger, unreadable } = readLedger(files.ledgerPath);
  if (files.mcp === undefined) return { runs, audits, heads, ledger, unreadableLedgerLines: unreadable };
  const mcp = readMcpExecutions(files.mcp);
  return { runs, audits, heads, ledger: [...ledger, ...mcpLedgerLines(mcp.executions, runs)], unreadableLedgerLines: unreadable, mcp };
}

/** Whether a store location ({@link StoreFiles.runStore}) names EventStoreDB rather than a file. */
export function isEventStoreDb(location: string): boolean {
  return /^esdb(\+discover)?:\/\//.test(location);
}

/** Whether a store location names PostgreSQL ({@link postgresLocation}). */
export function isPostgres(location: string): boolean {
  return /^postgres(ql)?:\/\//.test(location);
}

/** Whether a store location names a server (EventStoreDB, PostgreSQL) rather than a file. */
export function isServerStore(location: string): boolean {
  return isEventStoreDb(location) || isPostgres(location);
}

/** The location of a PostgreSQL store: its connection string and, after `#schema=`, its schema (the harness's notation, not the driver's). */
export function postgresLocation(connectionString: string, schema: string): string {
  return `${connectionString}#schema=${schema}`;
}

/** The connection string and the schema of a {@link postgresLocation}. */
export function parsePostgresLocation(location: string): { readonly connectionString: string; readonly schema: string } {
  const match = /^(.*)#schema=([a-z0-9_]+)$/.exec(location);
  if (match === null) throw new Error(`not a PostgreSQL store location (<connection string>#schema=<schema>): ${location}`);
  return { connectionString: match[1] as string, schema: match[2] as string };
}

/** Opens the store at a location: EventStoreDB or PostgreSQL for a connection string (as the service does), else the embedded file. */
export function openStoreAt(location: string): EventStore {
  if (isPostgres(location)) return PostgresEventStore.connect({ ...parsePostgresLocation(location), poolSize: 2 });
  return isEventStoreDb(location) ? createEventStore({ env: { EVENTSTORE_CONNECTION_STRING: location } }) : SqliteEventStore.open({ path: location });
}

/** The execution ledger's lines. */
export function readLedger(path: string): { ledger: LedgerLine[]; unreadable: string[] } {
  const ledger: LedgerLine[] = [];
  const unreadable: string[] = [];
  if (!existsSync(path)) return { ledger, unreadable };
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    try {
      ledger.push(JSON.parse(line) as LedgerLine);
    } catch {
      unreadable.push(line);
    }
  }
  return { ledger, unreadable };
}

function toHistoryEvent(event: RecordedEvent): HistoryEvent {
  return { type: event.type, revision: Number(event.revision), position: event.position, data: event.data };
}
