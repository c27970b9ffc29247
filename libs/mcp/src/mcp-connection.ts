import { isAbsolute, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { ConfigurationError, isWrite, ToolEffect } from '@agent-ledger/domain';
import type { ExternalToolEffect, JsonObject, JsonValue } from '@agent-ledger/domain';
import { MCP_IDEMPOTENCY_KEY_META, resolveMcpValue, RestartBackoff } from '@agent-ledger/runtime';
import type { McpServerBinding, McpToolBinding, ToolContext } from '@agent-ledger/runtime';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { McpCounters } from './mcp-counters';
import { mapMcpCallError } from './mcp-error-mapping';
import { McpConnectionError, McpToolChangedError } from './mcp-errors';
import type { McpLogger } from './mcp-logger';
import { recordMcpResult } from './mcp-result';
import type { McpCallResult } from './mcp-result';
import { contractChanges, contractOf } from './mcp-tool-contract';
import type { McpListedTool, McpToolContract } from './mcp-tool-contract';
import { StderrLines } from './stderr-lines';

/** The longest timeout Node's timers take (a larger one, `Infinity` included, fires after 1 ms). */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** The SDK's own timeout of a call is this long past the operation deadline: the runtime's deadline signal fires first. */
const SDK_TIMEOUT_MARGIN_MS = 5_000;
/** A server listing more pages than this is answering in a loop. */
const MAX_LIST_PAGES = 1_000;
/** How long the start waits for a `tools/list_changed` right after `initialize` when a bound tool is missing (servers that add tools once initialised). */
const SETTLE_AFTER_INIT_MS = 1_500;

/** A bound tool of a connection: its binding, its contract as checked at start, its resolved effect. */
export interface BoundMcpTool {
  readonly binding: McpToolBinding;
  readonly server: string;
  readonly listed: McpListedTool;
  readonly contract: McpToolContract;
  readonly resolved: ExternalToolEffect;
  /** The operation deadline the runtime applies, in seconds. */
  readonly deadlineSeconds: number;
  readonly maxInlineBytes: number;
  readonly maxResultBytes: number;
}

/** What the host tells the connections: where to log, the environment secrets are read from, the client's name. */
export interface McpConnectionOptions {
  readonly logger: McpLogger;
  readonly counters: McpCounters;
  readonly env: NodeJS.ProcessEnv;
  readonly clientInfo: { readonly name: string; readonly version: string };
}

/** One MCP server's connection, as {@link McpServers.states} shows it. */
export interface McpServerState {
  readonly server: string;
  readonly transport: 'stdio' | 'http';
  /** `up`; `starting` (first start or a restart in progress); `down` (waiting for its next attempt); `closed`. */
  readonly status: 'starting' | 'up' | 'down' | 'closed';
  /** The stdio server's pid while it runs; null otherwise and for HTTP. */
  readonly pid: number | null;
  /** How many times it was started (or connected) again after it exited (or its connection closed). */
  readonly restarts: number;
  /** stderr lines not logged (over the throttle), since the first start. */
  readonly droppedStderrLines: number;
  /** When the next attempt to start it is made (epoch ms), while it is down. */
  readonly nextAttemptAt: number | null;
}

/**
 * The connection to one bound MCP server, over stdio (a child process it
 * starts and restarts) or Streamable HTTP: one interface for both.
 *
 * - Each (re)start is a fresh SDK `Client` and transport. The SDK's
 *   `client.onclose` and `client.onerror` hooks are used, never the
 *   transport's: `Protocol.connect()` installs its own transport handlers,
 *   which fail the calls in flight when the connection closes.
 * - A server that exits (stdio) or whose connection closes (HTTP) is started
 *   again after the binding's back-off ({@link RestartBackoff}); calls made
 *   meanwhile fail at once with `MCP_SERVER_UNAVAILABLE`, naming the next
 *   attempt. After a restart, every bound tool is checked again.
 * - `tools/list_changed` (debounced by the SDK, re-listed here, page by
 *   page): a bound tool that disappeared or whose contract changed is refused
 *   at its next call (`MCP_TOOL_CHANGED`), without calling the server.
 * - HTTP: a 404 on the session re-establishes it once, and the call is sent
 *   again only when it is safe to (`READ_ONLY`, `IDEMPOTENT_WRITE`, with the
 *   same idempotency key); a `NON_IDEMPOTENT_WRITE` fails with
 *   `MCP_SESSION_EXPIRED`.
 */
export class McpServerConnection {
  private client: Client | null = null;
  private status: McpServerState['status'] = 'starting';
  private closing = false;
  private startedAt = 0;
  private downSince = 0;
  private restarts = 0;
  private nextAttemptAt: number | null = null;
  private timer: NodeJS.Timeout | null = null;
  private pid: number | null = null;
  private reconnecting: Promise<void> | null = null;
  /** Calls in flight, by the client they were sent on. */
  private readonly inFlight = new Map<Client, number>();
  /** Clients whose session the server forgot, closed once their last call in flight has ended (each gets its own 404). */
  private readonly retired = new Set<Client>();
  private readonly backoff: RestartBackoff;
  private readonly stderr: StderrLines;
  /** The contract each bound tool was checked against at start, by its name on the server. */
  private readonly contracts = new Map<string, McpToolContract>();
  /** What changed, for each bound tool refused since (never cleared: a restart of the service checks it again). */
  private readonly changed = new Map<string, readonly string[]>();
  private listings = 0;
  private listed: readonly McpListedTool[] = [];
  private readonly listingWaiters: Array<() => void> = [];

  constructor(
    readonly binding: McpServerBinding,
    private readonly options: McpConnectionOptions,
  ) {
    this.backoff = new RestartBackoff(binding.restart);
    this.stderr = new StderrLines(binding.name, options.logger, () => options.counters.increment('mcpStderrLinesDropped'));
  }

  /** The binding's server name. */
  get name(): string {
    return this.binding.name;
  }

  /** The tools the server listed last. */
  get tools(): readonly McpListedTool[] {
    return this.listed;
  }

  /** Where the connection is. */
  state(): McpServerState {
    return {
      server: this.name,
      transport: this.binding.transport.type,
      status: this.status,
      pid: this.status === 'up' ? this.pid : null,
      restarts: this.restarts,
      droppedStderrLines: this.stderr.dropped,
      nextAttemptAt: this.status === 'down' ? this.nextAttemptAt : null,
    };
  }

  /** What the server advertised (its `tools` capability). */
  hasToolsCapability(): boolean {
    return this.client?.getServerCapabilities()?.tools !== undefined;
  }

  /**
   * Starts (or connects to) the server, initialises the session and lists
   * its tools, all within the binding's `startTimeoutSeconds`.
   *
   * @throws the SDK's error, or a {@link ConfigurationError} for a secret that cannot be read, a timeout, or a malformed message from the server
   */
  async start(): Promise<void> {
    await this.open(this.binding.startTimeoutSeconds * 1000);
  }

  /**
   * Waits, when `missing` is not empty and the server sends list changes,
   * for a `tools/list_changed` right after `initialize` to be re-listed (the
   * everything server adds tools once initialised), at most 1.5 s.
   */
  async settle(missing: readonly string[]): Promise<void> {
    if (missing.length === 0 || this.client?.getServerCapabilities()?.tools?.listChanged !== true) return;
    const seen = this.listings;
    await new Promise<void>((done) => {
      const timer = setTimeout(done, SETTLE_AFTER_INIT_MS);
      this.listingWaiters.push(() => {
        if (this.listings > seen) {
          clearTimeout(timer);
          done();
        }
      });
    });
  }

  /** Keeps the contract a bound tool was checked against at start: a later listing that differs refuses it. */
  bind(tool: McpListedTool): void {
    this.contracts.set(tool.name, contractOf(tool));
    // A list change re-listed between the check and now is compared too.
    if (this.listed.some((listed) => listed !== tool && listed.name === tool.name) || !this.listed.some((listed) => listed.name === tool.name)) {
      this.took(this.listed, 'the server changed its tool list while it was checked');
    }
  }

  /**
   * Calls a bound tool: the step's idempotency key in the request's `_meta`,
   * the call's signal (an abort sends `notifications/cancelled`), the SDK's
   * own timeout 5 s past the operation deadline (never `Infinity`); the
   * result recorded by {@link recordMcpResult}, an error mapped by
   * {@link mapMcpCallError}.
   */
  async call(tool: BoundMcpTool, args: JsonObject, context: ToolContext): Promise<JsonValue> {
    const site = { toolName: tool.binding.name, server: this.name, effect: tool.resolved.effect, signal: context.signal };
    const client = this.usableClient(tool);
    const send = async (target: Client) => {
      this.inFlight.set(target, (this.inFlight.get(target) ?? 0) + 1);
      try {
        return await target.callTool(
          { name: tool.binding.tool, arguments: args, _meta: { [MCP_IDEMPOTENCY_KEY_META]: context.idempotencyKey } },
          undefined,
          { signal: context.signal, timeout: Math.min(MAX_TIMER_MS, tool.deadlineSeconds * 1000 + SDK_TIMEOUT_MARGIN_MS) },
        );
      } finally {
        this.callEnded(target);
      }
    };
    let result;
    try {
      result = await send(client);
    } catch (error) {
      if (!(error instanceof StreamableHTTPError && error.code === 404) || context.signal.aborted) throw mapMcpCallError(error, site);
      // The server forgot the session (a restart, an expiry): by the protocol the request was not processed.
      await this.reestablish(client, error);
      const again = this.usableClient(tool);
      if (tool.resolved.effect === ToolEffect.NON_IDEMPOTENT_WRITE) {
        throw new McpConnectionError(
          this.name,
          'MCP_SESSION_EXPIRED',
          `MCP server ${this.name} no longer knew the session (HTTP 404); it was re-established, but ${tool.binding.name} (NON_IDEMPOTENT_WRITE) is not sent twice`,
          { cause: error },
        );
      }
      try {
        result = await send(again);
      } catch (retryError) {
        throw mapMcpCallError(retryError, site);
      }
    }
    return recordMcpResult(result as McpCallResult, tool.binding.name, tool);
  }

  private callEnded(client: Client): void {
    const left = (this.inFlight.get(client) ?? 1) - 1;
    if (left > 0) {
      this.inFlight.set(client, left);
      return;
    }
    this.inFlight.delete(client);
    if (this.retired.delete(client)) void client.close().catch(() => undefined);
  }

  /**
   * Closes a client whose session the server forgot, once no call is in
   * flight on it: closing it at once would fail its other calls as a closed
   * connection, when each will meet the same 404 and be sent again (or not)
   * by the rule of its effect.
   */
  private async retire(client: Client): Promise<void> {
    if ((this.inFlight.get(client) ?? 0) > 0) this.retired.add(client);
    else await client.close().catch(() => undefined);
  }

  /** Stops restarting, and closes the connection (a stdio server: stdin closed, then SIGTERM, then SIGKILL, by the SDK). */
  async close(): Promise<void> {
    this.closing = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    const client = this.client;
    this.client = null;
    this.status = 'closed';
    const retired = [...this.retired];
    this.retired.clear();
    await Promise.all(retired.map((old) => old.close().catch(() => undefined)));
    await client?.close().catch((error: unknown) => this.options.logger.warn(`MCP server ${this.name}: closing failed: ${describe(error)}`));
  }

  private usableClient(tool: BoundMcpTool): Client {
    const changes = this.changed.get(tool.binding.tool);
    if (changes !== undefined) throw new McpToolChangedError(tool.binding.name, this.name, changes);
    if (this.client !== null && this.status === 'up') return this.client;
    if (this.status === 'closed') throw new McpConnectionError(this.name, 'MCP_SERVER_UNAVAILABLE', `MCP server ${this.name} is closed (the service is stopping)`);
    if (this.status === 'down' && this.nextAttemptAt !== null) {
      const inMs = Math.max(0, this.nextAttemptAt - Date.now());
      throw new McpConnectionError(
        this.name,
        'MCP_SERVER_UNAVAILABLE',
        `MCP server ${this.name} is down (since ${new Date(this.downSince).toISOString()}); the next attempt to ${this.verb()} it is in ${inMs} ms, at ${new Date(this.nextAttemptAt).toISOString()}`,
      );
    }
    throw new McpConnectionError(this.name, 'MCP_SERVER_UNAVAILABLE', `MCP server ${this.name} is being ${this.binding.transport.type === 'stdio' ? 'started' : 'connected'} again`);
  }

  private async open(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    const transport = this.transport();
    let failStart: (error: Error) => void = () => undefined;
    const malformed = new Promise<never>((_, reject) => (failStart = reject));
    malformed.catch(() => undefined);
    const client = new Client(
      { name: this.options.clientInfo.name, version: this.options.clientInfo.version },
      {
        capabilities: {},
        listChanged: { tools: { autoRefresh: false, debounceMs: 300, onChanged: () => void this.relist(client, 'the server changed its tool list') } },
      },
    );
    let starting = true;
    client.onerror = (error: Error) => {
      // A line that is not JSON-RPC (SyntaxError) or not a valid message (ZodError): during the start, a refusal.
      if (starting && (error.name === 'SyntaxError' || error.name === 'ZodError' || /JSON/.test(error.message))) {
        failStart(new ConfigurationError(`the server sent a message that is not valid JSON-RPC: ${describe(error)}`, { cause: error }));
        return;
      }
      // A 404 on the session reaches the call too, which re-establishes it and says so.
      if (client === this.client && !(error instanceof StreamableHTTPError && error.code === 404)) this.options.logger.warn(`MCP server ${this.name}: ${describe(error)}`);
    };
    client.onclose = () => this.onClose(client);
    try {
      await Promise.race([malformed, this.withDeadline(client.connect(transport, { timeout: remaining(deadline) }), deadline, 'initialise')]);
      // A server without the tools capability answers tools/list with an error: the start-up check refuses it by its capabilities.
      const tools = client.getServerCapabilities()?.tools === undefined ? [] : await Promise.race([malformed, this.withDeadline(listAll(client, deadline), deadline, 'list its tools')]);
      starting = false;
      this.client = client;
      this.pid = transport instanceof StdioClientTransport ? transport.pid : null;
      this.status = 'up';
      this.startedAt = Date.now();
      this.nextAttemptAt = null;
      this.took(tools, null);
    } catch (error) {
      starting = false;
      await client.close().catch(() => undefined);
      throw error;
    }
  }

  private transport(): Transport {
    const { transport, baseDir } = this.binding;
    const field = (key: string) => `mcpServers "${this.name}".transport.${key}`;
    if (transport.type === 'stdio') {
      const env: Record<string, string> = {};
      for (const [name, source] of Object.entries(transport.env)) env[name] = resolveMcpValue(source, `${field('env')}.${name}`, baseDir, this.options.env);
      const command = transport.command.includes('/') && !isAbsolute(transport.command) ? resolve(baseDir, transport.command) : transport.command;
      const stdio = new StdioClientTransport({ command, args: [...transport.args], env, cwd: resolve(baseDir, transport.cwd), stderr: 'pipe' });
      const stderr = stdio.stderr;
      if (stderr !== null) this.stderr.follow(stderr as Readable, () => stdio.pid);
      return stdio;
    }
    const headers: Record<string, string> = {};
    for (const [name, source] of Object.entries(transport.headers)) headers[name] = resolveMcpValue(source, `${field('headers')}.${name}`, baseDir, this.options.env);
    return new StreamableHTTPClientTransport(new URL(transport.url), { requestInit: { headers } });
  }

  private onClose(client: Client): void {
    if (client !== this.client || this.closing) return;
    this.client = null;
    const ranForMs = Date.now() - this.startedAt;
    const pid = this.pid;
    this.pid = null;
    this.downSince = Date.now();
    const what = this.binding.transport.type === 'stdio' ? `MCP server ${this.name} (pid ${pid ?? '?'}) exited` : `MCP server ${this.name}: the connection closed`;
    this.scheduleRestart(what, ranForMs);
  }

  private scheduleRestart(what: string, ranForMs: number): void {
    const delay = this.backoff.delayAfterExit(ranForMs);
    this.status = 'down';
    this.nextAttemptAt = Date.now() + delay;
    this.options.logger.error(`${what}: ${this.verb()}ing it again in ${delay} ms; the calls it had in flight failed (connection)`);
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.restart();
    }, delay);
    this.timer.unref();
  }

  private async restart(): Promise<void> {
    if (this.closing) return;
    this.status = 'starting';
    this.nextAttemptAt = null;
    try {
      await this.open(this.binding.startTimeoutSeconds * 1000);
      this.restarts += 1;
      this.options.counters.increment('mcpServerRestarts');
      this.options.logger.warn(`MCP server ${this.name}${this.pid === null ? '' : ` (pid ${this.pid})`} ${this.verb()}ed again (${this.restarts} restart${this.restarts === 1 ? '' : 's'})`);
    } catch (error) {
      if (this.closing) return;
      this.scheduleRestart(`MCP server ${this.name}: could not ${this.verb()} it again (${describe(error)})`, 0);
    }
  }

  /** After a 404 on the session: one new session now (the calls waiting for it share it). */
  private async reestablish(failed: Client, cause: unknown): Promise<void> {
    // Another call that met the same 404 re-established the session already: use the new one.
    if (this.reconnecting === null && this.client !== null && this.client !== failed && this.status === 'up') return;
    if (this.reconnecting === null) {
      this.reconnecting = (async () => {
        if (this.client === failed) this.client = null;
        if (this.timer !== null) clearTimeout(this.timer);
        this.timer = null;
        this.status = 'starting';
        await this.retire(failed);
        this.options.logger.warn(`MCP server ${this.name} no longer knows the session (HTTP 404): establishing a new one`);
        try {
          await this.open(this.binding.startTimeoutSeconds * 1000);
          this.restarts += 1;
          this.options.counters.increment('mcpServerRestarts');
        } catch (error) {
          this.downSince = Date.now();
          this.scheduleRestart(`MCP server ${this.name}: a new session could not be established (${describe(error)})`, 0);
          throw new McpConnectionError(this.name, 'MCP_SESSION_EXPIRED', `MCP server ${this.name} no longer knew the session (HTTP 404), and a new one could not be established: ${describe(error)}`, {
            cause: cause ?? error,
          });
        }
      })().finally(() => (this.reconnecting = null));
    }
    await this.reconnecting;
  }

  private async relist(client: Client, why: string): Promise<void> {
    if (client !== this.client) return;
    try {
      const tools = await listAll(client, Date.now() + this.binding.startTimeoutSeconds * 1000);
      if (client === this.client) this.took(tools, why);
    } catch (error) {
      this.options.logger.warn(`MCP server ${this.name}: ${why}, but listing its tools again failed: ${describe(error)}`);
    }
  }

  /** Takes a listing: every bound tool compared with its contract at start (`why` null: the first listing, or a restart's). */
  private took(tools: readonly McpListedTool[], why: string | null): void {
    this.listed = tools;
    this.listings += 1;
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    for (const [name, before] of this.contracts) {
      if (this.changed.has(name)) continue;
      const now = byName.get(name);
      const changes = now === undefined ? ['removed from the server’s tool list'] : contractChanges(before, contractOf(now));
      const context = why ?? 'after it was started again';
      if (changes.length > 0) {
        this.changed.set(name, changes);
        this.options.logger.error(`MCP server ${this.name}: ${context}: bound tool ${name} ${changes.join('; ')}; its calls are refused (MCP_TOOL_CHANGED) until the service is started again`);
      } else if (now !== undefined && (now.description ?? now.title ?? null) !== before.description) {
        this.options.logger.log(`MCP server ${this.name}: ${context}: bound tool ${name} has a new description (its contract is unchanged)`);
      }
    }
    for (const waiter of this.listingWaiters.splice(0)) waiter();
  }

  private withDeadline<T>(promise: Promise<T>, deadline: number, what: string): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new ConfigurationError(`it did not ${what} within startTimeoutSeconds (${this.binding.startTimeoutSeconds} s)`)),
        remaining(deadline),
      );
    });
    return Promise.race([promise, late]).finally(() => clearTimeout(timer));
  }

  private verb(): string {
    return this.binding.transport.type === 'stdio' ? 'start' : 'connect';
  }
}

/** Every page of `tools/list`. */
async function listAll(client: Client, deadline: number): Promise<McpListedTool[]> {
  const tools: McpListedTool[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_LIST_PAGES; page += 1) {
    const answer = await client.listTools(cursor === undefined ? undefined : { cursor }, { timeout: remaining(deadline) });
    tools.push(...(answer.tools as McpListedTool[]));
    cursor = answer.nextCursor;
    if (cursor === undefined) return tools;
  }
  throw new ConfigurationError(`tools/list gave more than ${MAX_LIST_PAGES} pages`);
}

function remaining(deadline: number): number {
  return Math.min(MAX_TIMER_MS, Math.max(1, deadline - Date.now()));
}

/** An error's message, with its cause's code (`ENOENT`, `ECONNREFUSED`) when it has one. */
export function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code ?? ((error as { cause?: { code?: unknown } }).cause as { code?: unknown } | undefined)?.code;
  // A system error's code (ENOENT, ECONNREFUSED, UND_ERR_...) says what the message may not; our own errors' codes do not.
  return typeof code === 'string' && /^(E[A-Z0-9]+|UND_ERR_[A-Z_]+)$/.test(code) && !error.message.includes(code) ? `${error.message} (${code})` : error.message;
}

/** The deadline the runtime applies to a bound tool: the binding's; else 60 s for a read; else the runtime's for writes (300 s). */
export function deadlineOf(binding: McpToolBinding, effect: ToolEffect, readDefaultSeconds: number, writeDefaultSeconds: number): number {
  return binding.operationDeadlineSeconds ?? (isWrite(effect) ? writeDefaultSeconds : readDefaultSeconds);
}
