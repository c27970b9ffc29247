import type { ToolEffect } from '@agent-ledger/domain';
import type { ToolDataClass } from '../tools/tool-metadata';

/**
 * A value given to an MCP server (an environment variable of a stdio server,
 * a header of an HTTP server): a literal, or a secret read by name from the
 * service's environment or from a file, never written in a file. `prefix`
 * goes before the secret (`"Bearer "`).
 */
export type McpValueSource =
  | string
  | { readonly fromEnv: string; readonly prefix?: string }
  | { readonly fromFile: string; readonly prefix?: string };

/** An MCP server the service starts as a child process and talks to over its stdin and stdout. */
export interface McpStdioTransportBinding {
  readonly type: 'stdio';
  /** The program: a name looked up on `PATH` (`node`), or a path (relative: from the binding's folder). */
  readonly command: string;
  /** @default [] */
  readonly args: readonly string[];
  /** The server's working folder (relative: from the binding's folder). @default the binding's folder */
  readonly cwd: string;
  /** Variables added to the server's small default environment (`HOME`, `PATH`, ...); the service's own environment is not passed. @default {} */
  readonly env: Readonly<Record<string, McpValueSource>>;
}

/** An MCP server reached over Streamable HTTP. */
export interface McpHttpTransportBinding {
  readonly type: 'http';
  /** The server's MCP endpoint (`http:` or `https:`, no credentials in it). */
  readonly url: string;
  /** Headers sent with every request. @default {} */
  readonly headers: Readonly<Record<string, McpValueSource>>;
}

/** How the service reaches an MCP server. */
export type McpTransportBinding = McpStdioTransportBinding | McpHttpTransportBinding;

/** One tool of an MCP server offered to agents, as its binding declares it. */
export interface McpToolBinding {
  /** The tool's name on the server. */
  readonly tool: string;
  /** The name agents call it by: `<server>.<tool>`, or the binding's `as`. */
  readonly name: string;
  /** The effect the binding declares; absent: `NON_IDEMPOTENT_WRITE` unless the server's hints are trusted. */
  readonly effect?: ToolEffect;
  /** How long one call may take, in seconds. @default 300 for a write, 60 for a read */
  readonly operationDeadlineSeconds?: number;
  /** @default 'internal' */
  readonly dataClass?: ToolDataClass;
  /** Every call waits for a person's approval, whatever its effect. @default false */
  readonly requiresApproval?: boolean;
}

/** Restarting a stdio server that exited: the first delay, doubling while it keeps exiting within a minute, up to the maximum. */
export interface McpRestartPolicy {
  /** @default 1000 */
  readonly initialDelayMs: number;
  /** @default 30000 */
  readonly maxDelayMs: number;
}

/** An MCP server bound to the service: how to reach it, which of its tools agents may call, and with which effects. */
export interface McpServerBinding {
  /** The server's name, the prefix of its tools' names: `^[a-z][a-z0-9-]{0,30}$`. */
  readonly name: string;
  readonly transport: McpTransportBinding;
  /** Whether the server's effect hints are trusted (then they decide a tool's effect). @default false */
  readonly trustHints: boolean;
  /** How long starting or connecting, initialising and listing the tools may take, in seconds. @default 30 */
  readonly startTimeoutSeconds: number;
  /** A binary or embedded-resource block of a result larger than this many bytes is recorded by size and digest, not inline. @default 65536 */
  readonly maxInlineBytes: number;
  /**
   * The largest result recorded, in bytes of its recorded JSON (after the
   * blocks over `maxInlineBytes` are replaced by their size and digest): a
   * larger one is the call's failure (`MCP_RESULT_TOO_LARGE`), nothing of it
   * recorded. Keep it under the store's largest append (EventStoreDB: 1 MiB
   * by default). @default 262144
   */
  readonly maxResultBytes: number;
  /** Restarting a stdio server (ignored for HTTP, which reconnects with the same back-off). */
  readonly restart: McpRestartPolicy;
  /** The tools offered to agents, at least one; a tool of the server that is not listed is not offered. */
  readonly tools: readonly McpToolBinding[];
  /** Where the binding was read: a file's path, or `plugin <file>`. */
  readonly source: string;
  /** The folder relative paths of the binding are resolved from (the binding file's folder). */
  readonly baseDir: string;
}

/** The pattern of an MCP server's name in a binding. */
export const MCP_SERVER_NAME_PATTERN = /^[a-z][a-z0-9-]{0,30}$/;

/** The defaults of a binding's optional settings. */
export const MCP_BINDING_DEFAULTS = Object.freeze({
  trustHints: false,
  startTimeoutSeconds: 30,
  maxInlineBytes: 65_536,
  maxResultBytes: 262_144,
  restart: Object.freeze({ initialDelayMs: 1_000, maxDelayMs: 30_000 }),
  readOperationDeadlineSeconds: 60,
});

/**
 * The key under which every MCP tool call carries the step's idempotency key
 * in its request's `_meta`: the same for every attempt of the step, so that a
 * server can honour a retried write once.
 */
export const MCP_IDEMPOTENCY_KEY_META = 'agent-ledger/idempotency-key';
