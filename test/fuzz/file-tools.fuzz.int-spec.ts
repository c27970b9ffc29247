/**
 * Tool arguments from a hostile or broken model against the real built-in
 * file tools (`files.read`, `files.list`, `files.write`, `files.append`) on a
 * real workspace folder with links, a FIFO and a sentinel folder next to it
 * (see `support/workspace-fixture.ts`), through the `ToolRegistry`'s argument
 * validation as the runtime calls it:
 *
 * - `validateArguments` never throws, whatever it is given, and passes only
 *   what the schema allows, unchanged;
 * - a call whose arguments pass either succeeds **inside the workspace** or
 *   fails with one of the file tools' refusals, a `clientError`
 *   (`WORKSPACE_PATH_REFUSED`, `WORKSPACE_ENTRY`, `FILE_TOO_LARGE`), within
 *   a few seconds (never hangs, never a raw Node error, never `WORKSPACE_IO`);
 * - nothing outside the workspace is ever written (the sentinel folder and
 *   the sibling are compared with their snapshot after every call, and the
 *   canary name is looked for in the temp folder and `/`), nor read (no result
 *   carries the sentinel's secret or its file names).
 *
 * Budget: `FUZZ_RUNS` calls (default 2500); `FUZZ_SEED` replays a seed.
 */
import * as path from 'node:path';
import { realpathSync } from 'node:fs';
import fc from 'fast-check';
import { AgentLedgerError } from '@agent-ledger/domain';
import type { AgentTool } from '../../libs/runtime/src/tools/agent-tool';
import { FilesAppendTool } from '../../libs/runtime/src/tools/builtin/files/files-append.tool';
import { FilesListTool } from '../../libs/runtime/src/tools/builtin/files/files-list.tool';
import { FilesReadTool } from '../../libs/runtime/src/tools/builtin/files/files-read.tool';
import { FilesWriteTool } from '../../libs/runtime/src/tools/builtin/files/files-write.tool';
import { Workspace } from '../../libs/runtime/src/tools/builtin/files/workspace';
import { ToolRegistry } from '../../libs/runtime/src/tools/tool-registry';
import type { ToolCall } from './support/tool-arbitraries';
import { abbreviate, FILE_TOOLS, toolCall } from './support/tool-arbitraries';
import type { WorkspaceFixture } from './support/workspace-fixture';
import { makeWorkspaceFixture } from './support/workspace-fixture';
import { scaled } from '../support/time-scale';

const RUNS = Number(process.env.FUZZ_RUNS ?? 2500);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
const MAX_FILE_BYTES = 4096;
/** The file tools' refusals: the model's request was wrong, nothing was read or written. */
const REFUSALS = new Set(['WORKSPACE_PATH_REFUSED', 'WORKSPACE_ENTRY', 'FILE_TOO_LARGE']);
const CALL_TIMEOUT_MS = 5000;

/** What one call gave. */
type Outcome = { readonly kind: 'invalidArguments'; readonly errors: readonly string[] } | { readonly kind: 'succeeded'; readonly result: unknown } | { readonly kind: 'failed'; readonly error: unknown } | { readonly kind: 'hung' };

describe('the file tools under hostile arguments (fuzz)', () => {
  jest.setTimeout(scaled(Math.max(120_000, RUNS * 100)));
  let fixture: WorkspaceFixture;
  let registry: ToolRegistry;
  const outcomes = new Map<string, number>();
  let calls = 0;
  const started = Date.now();

  beforeAll(async () => {
    fixture = makeWorkspaceFixture(MAX_FILE_BYTES);
    const workspace = await Workspace.open({ workspaceDir: path.join(fixture.base, 'workspace'), maxFileBytes: MAX_FILE_BYTES });
    registry = new ToolRegistry();
    for (const tool of [new FilesReadTool(workspace), new FilesListTool(workspace), new FilesWriteTool(workspace), new FilesAppendTool(workspace)]) registry.register(tool as AgentTool & object);
  });

  afterAll(() => {
    fixture?.close();
    const shown = [...outcomes.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([k, n]) => `${k}: ${n}`).join(', ');
    process.stdout.write(`File-tool fuzz: ${calls} calls in ${((Date.now() - started) / 1000).toFixed(1)} s (runs ${RUNS}${SEED === undefined ? '' : `, seed ${SEED}`}); ${shown}\n`);
  });

  /** Validates and, when the arguments pass, executes a call as the runtime does. */
  async function execute(call: ToolCall): Promise<Outcome> {
    const check = registry.validateArguments(call.tool, call.arguments);
    if (!check.ok) return { kind: 'invalidArguments', errors: check.errors };
    const registered = registry.get(call.tool);
    if (registered === undefined) throw new Error(`${call.tool} is not registered`);
    const context = { runId: 'fuzz', stepId: 'fuzz/r0/t0', idempotencyKey: 'fuzz/r0/t0', attempt: 1, signal: new AbortController().signal };
    let timer: NodeJS.Timeout | undefined;
    const hung = new Promise<Outcome>((resolve) => {
      timer = setTimeout(() => resolve({ kind: 'hung' }), CALL_TIMEOUT_MS);
    });
    try {
      return await Promise.race([
        registered.tool.execute(check.args, context).then(
          (result): Outcome => ({ kind: 'succeeded', result }),
          (error: unknown): Outcome => ({ kind: 'failed', error }),
        ),
        hung,
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  function count(key: string): void {
    outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
  }

  /** Whether `target` (relative to the workspace, as a tool reports it) names something inside the workspace. */
  function inside(target: string): boolean {
    const root = realpathSync(fixture.root);
    const resolved = path.resolve(root, target);
    let real = resolved;
    try {
      real = realpathSync(resolved);
    } catch {
      // Reported but gone (a write of a name the file system spells otherwise): judged by its lexical path.
    }
    for (const candidate of [resolved, real]) {
      const relative = path.relative(root, candidate);
      if (relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative)) return false;
    }
    return true;
  }

  function violations(call: ToolCall, outcome: Outcome): string[] {
    const broken: string[] = [];
    if (outcome.kind === 'hung') broken.push(`the call did not return in ${CALL_TIMEOUT_MS} ms`);
    if (outcome.kind === 'invalidArguments' && (outcome.errors.length === 0 || outcome.errors.some((e) => typeof e !== 'string' || e === ''))) broken.push('refused arguments without a reason');
    if (outcome.kind === 'failed') {
      const error = outcome.error;
      if (!(error instanceof AgentLedgerError)) broken.push(`a raw error: ${String(error)}`);
      else {
        if (!REFUSALS.has(error.code)) broken.push(`failed with ${error.code} (${error.failureClass}): ${error.message.slice(0, 200)}`);
        if (error.failureClass !== 'clientError') broken.push(`a refusal of class ${error.failureClass}, not clientError`);
      }
    }
    if (outcome.kind === 'succeeded') {
      const text = JSON.stringify(outcome.result);
      if (text.includes(fixture.secret)) broken.push('a result carries the sentinel secret');
      for (const name of fixture.sentinelNames) if (text.includes(name)) broken.push(`a result names the sentinel's ${name}`);
      const reported = (outcome.result as { path?: unknown }).path;
      if (typeof reported !== 'string' || !inside(reported)) broken.push(`a result for a path outside the workspace: ${String(reported)}`);
    }
    broken.push(...fixture.outsideViolations());
    return broken;
  }

  it('validateArguments never throws, and passes only what the schema allows, unchanged', () => {
    fc.assert(
      fc.property(fc.constantFrom(...FILE_TOOLS, 'files.delete', '', '__proto__'), fc.oneof(fc.anything(), fc.jsonValue()), (tool, args) => {
        const check = registry.validateArguments(tool, args);
        if (!check.ok) {
          expect(check.errors.length).toBeGreaterThan(0);
          return;
        }
        expect(check.args).toBe(args);
        const { path: p, content } = check.args as { path?: unknown; content?: unknown };
        if (tool === 'files.list') expect(p === undefined || (typeof p === 'string' && p.length >= 1 && p.length <= 4096)).toBe(true);
        else expect(typeof p === 'string' && p.length >= 1 && p.length <= 4096).toBe(true);
        if (tool === 'files.write' || tool === 'files.append') expect(typeof content).toBe('string');
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });

  it('answers every call with a confined result or a refusal, and never writes nor reads outside the workspace', async () => {
    await fc.assert(
      fc.asyncProperty(toolCall(fixture.base, MAX_FILE_BYTES), async (call) => {
        calls++;
        const outcome = await execute(call);
        count(outcome.kind === 'failed' && outcome.error instanceof AgentLedgerError ? `${call.tool} ${outcome.error.code}` : `${call.tool} ${outcome.kind}`);
        const broken = violations(call, outcome);
        if (broken.length > 0) {
          const detail = outcome.kind === 'succeeded' ? abbreviate(outcome.result) : outcome.kind === 'failed' ? String(outcome.error) : outcome.kind;
          throw new Error(`${broken.join('; ')}\ncall: ${call.tool} ${abbreviate(call.arguments)}\noutcome: ${detail.slice(0, 400)}`);
        }
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
  });
});
