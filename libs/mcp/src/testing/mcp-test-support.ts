/** Test helpers of @agent-ledger/mcp, for this repository's tests only: not part of the published package. */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { McpServerBinding, McpToolBinding, ToolContext } from '@agent-ledger/runtime';
import type { McpLogger } from '../mcp-logger';

/** The tests' own MCP server (test/support/mcp/test-server.cjs). */
export const TEST_SERVER = resolve(__dirname, '../../../../test/support/mcp/test-server.cjs');

/** The entry script of a reference server installed as a test dependency (`server-filesystem`, `server-everything`). */
export function referenceServer(name: 'server-filesystem' | 'server-everything'): string {
  return join(require.resolve(`@modelcontextprotocol/${name}/package.json`), '..', 'dist', 'index.js');
}

/** A stdio binding of `script` run by this Node.js, with the defaults of a validated binding (restarts after 100 ms). */
export function stdioBinding(name: string, script: string, tools: readonly (Partial<McpToolBinding> & { tool: string })[], overrides: Partial<McpServerBinding> & { args?: readonly string[]; env?: Record<string, string> } = {}): McpServerBinding {
  const { args, env, ...rest } = overrides;
  return {
    name,
    transport: { type: 'stdio', command: process.execPath, args: [script, ...(args ?? [])], cwd: '.', env: env ?? {} },
    trustHints: false,
    startTimeoutSeconds: 30,
    maxInlineBytes: 65_536,
    maxResultBytes: 262_144,
    restart: { initialDelayMs: 100, maxDelayMs: 1_000 },
    tools: tools.map((tool) => ({ name: `${name}.${tool.tool}`, ...tool })),
    source: 'the test',
    baseDir: process.cwd(),
    ...rest,
  };
}

/** A logger that keeps every line (and can also print them, with MCP_TEST_LOG=1). */
export class CapturingLogger implements McpLogger {
  readonly lines: Array<{ level: 'log' | 'warn' | 'error'; message: string }> = [];
  log(message: string): void {
    this.keep('log', message);
  }
  warn(message: string): void {
    this.keep('warn', message);
  }
  error(message: string): void {
    this.keep('error', message);
  }
  /** The lines that match `pattern`. */
  matching(pattern: RegExp): string[] {
    return this.lines.filter((line) => pattern.test(line.message)).map((line) => line.message);
  }
  private keep(level: 'log' | 'warn' | 'error', message: string): void {
    this.lines.push({ level, message });
    if (process.env.MCP_TEST_LOG === '1') process.stderr.write(`[${level}] ${message}\n`);
  }
}

/** A temp folder with a COUNT_FILE for the test server; `remove()` at the end. */
export function countFolder(): { dir: string; countFile: string; lines: () => Array<Record<string, unknown>>; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'agent-ledger-mcp-'));
  const countFile = join(dir, 'count.jsonl');
  return {
    dir,
    countFile,
    lines: () =>
      existsSync(countFile)
        ? readFileSync(countFile, 'utf8')
            .split('\n')
            .filter((line) => line !== '')
            .map((line) => JSON.parse(line) as Record<string, unknown>)
        : [],
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** A tool call's context, as the segment runner gives it. */
export function callContext(stepId: string, signal: AbortSignal = new AbortController().signal): ToolContext {
  return { runId: 'run-1', stepId, idempotencyKey: `agent-ledger:${stepId}`, attempt: 1, signal };
}
