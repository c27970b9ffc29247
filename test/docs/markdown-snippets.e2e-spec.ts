/**
 * Every TypeScript block of README.md, docs/client.md and docs/walkthrough.md compiles and runs
 * as written, in the project that `agent-ledger init` writes: each block is
 * read from the Markdown (an edit of the docs is tested), compiled with the
 * starter's package.json and compiler settings (CommonJS, strict) against the
 * packages' sources (`support/markdown-snippets.ts`), and run with `node`
 * against the service, started by this test (built in CI, as the e2e tier
 * does) with the example agents. A block that does not compile, throws, or
 * does not end fails its test, which names the file and the line.
 *
 * How a block runs follows the `<!-- snippet: ... -->` comment before it: a
 * script (no comment) runs as it is; a block given values (`given: client,
 * runId`) runs as the body of an `async` function, its values made here (the
 * runs, each in the state its name says) and by the runner (`client`,
 * `signal`, `render`); a `compile-only` block is not run: the three such
 * blocks are listed below with why. The only difference from a user's
 * machine: the scripts name the service at http://127.0.0.1:3000, the
 * address of the docs, which a preloaded module sends to this test's
 * service (listening on a free port); the key is in AGENT_LEDGER_API_KEY,
 * as the docs say. `DEBUG_SNIPPETS=1` prints each block's output.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentLedgerClient } from '@agent-ledger/client';
import type { JsonValue } from '@agent-ledger/client';
import { scaled } from '../support/time-scale';
import type { TestKey } from '../e2e/support/http-auth-support';
import { apiKeysEnv, testKey } from '../e2e/support/http-auth-support';
import type { HttpService } from '../e2e/support/http-service';
import { startHttpService } from '../e2e/support/http-service';
import type { CompiledSnippets, MarkdownSnippet, SnippetSource } from './support/markdown-snippets';
import { compileSnippets, packageResolution, snippetSource, snippetsOf, whereOf } from './support/markdown-snippets';

const root = join(__dirname, '..', '..');
const FILES = ['README.md', 'docs/client.md', 'docs/walkthrough.md'] as const;

/**
 * The blocks that are compiled and not run, each found by a text it holds,
 * and why. A block marked `compile-only` and not listed here fails, and so
 * does an entry that no longer matches a block.
 */
const COMPILE_ONLY: ReadonlyArray<{ readonly file: string; readonly holds: string; readonly why: string }> = [
  {
    file: 'README.md',
    holds: 'export class SaveNoteTool',
    why: "an excerpt of a plugin module (the starter's src/tools.ts): running the file would only define a class; the service runs a plugin's tools, as test/packaging/pack-and-install.e2e-spec.ts does with the starter's own",
  },
  {
    file: 'docs/walkthrough.md',
    holds: 'export class CommentTicketTool',
    why: "a tool of a Nest host, with the host's TicketClient: running the file would only define a class; a host's tools run in test/docs/library-examples.int-spec.ts",
  },
  {
    file: 'docs/client.md',
    holds: 'resolution:',
    why: 'a requeue with a write in flight needs a run dead-lettered WRITE_INTERRUPTED, which only the reaper makes, 120 s of real time after the write fence; test/e2e/readme-requeue.e2e-spec.ts does it with the CLI',
  },
];

/** The README's block before issue 26: top-level `await` (not in CommonJS), and a `for await` over `runEvents`, which never ends. */
const README_BEFORE = `import { AgentLedgerClient } from '@agent-ledger/client';
const client = new AgentLedgerClient({ baseUrl: 'http://127.0.0.1:3000', apiKey: process.env.AGENT_LEDGER_API_KEY });
const { runId } = await client.startRun({ agent: 'note-keeper', input: 'Remember: milk, bread', idempotencyKey: 'groceries-1' });
const run = await client.waitForSettled(runId, { timeoutMs: 60_000 });
for await (const event of client.runEvents(runId)) console.log(event.type);   // resumes by itself after a dropped connection`;

/** The same in an `async` main: it compiles, and hangs after RunCompleted. */
const README_BEFORE_IN_MAIN = `import { AgentLedgerClient } from '@agent-ledger/client';
async function main(): Promise<void> {
  const client = new AgentLedgerClient({ baseUrl: 'http://127.0.0.1:3000', apiKey: process.env.AGENT_LEDGER_API_KEY });
  const { runId } = await client.startRun({ agent: 'note-keeper', input: 'Remember: milk, bread', idempotencyKey: 'groceries-1' });
  await client.waitForSettled(runId, { timeoutMs: 60_000 });
  for await (const event of client.runEvents(runId)) console.log(event.type);
}
main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});`;

const fixture = (code: string): MarkdownSnippet => ({ file: '(README.md before issue 26)', line: 80, code, compileOnly: false, given: [] });

/** The example agents, and the starter's `note-keeper` that the README's script starts (here a clock reading stands for the starter's notes plugin). */
function agentsFile(folder: string): string {
  const path = join(folder, 'agents.example.yaml'); // the example file's name: the service seeds the notes.txt its agents read
  writeFileSync(
    path,
    `${readFileSync(join(root, 'config', 'agents.example.yaml'), 'utf8')}
  - name: note-keeper
    description: The starter's agent (agent-ledger init), without its plugin.
    instructions: Save what you are asked to remember.
    tools: [clock.now]
    maxIterations: 3
    provider:
      type: scripted
      script:
        - toolCalls:
            - tool: clock.now
        - final: Saved the groceries note and read it back.
`,
  );
  return path;
}

/** Sends the docs' address, http://127.0.0.1:3000, to the test's service: preloaded (`-r`) in every block's process. */
const REDIRECT_JS = `'use strict';
const documented = 'http://127.0.0.1:3000';
const actual = process.env.SNIPPET_SERVICE_URL;
const original = globalThis.fetch;
globalThis.fetch = (input, init) =>
  original(typeof input === 'string' && (input === documented || input.startsWith(documented + '/')) ? actual + input.slice(documented.length) : input, init);
`;

/**
 * Runs a block of statements: \`node runner.js <block.js>\` calls its function
 * with the values made by the test (SNIPPET_VALUES) and its own: \`client\`,
 * \`render\` (prints the event) and \`signal\` (aborts once \`render\` has
 * rendered an event). A block given both follows a stream until it renders
 * an event: for a stream "from now", the runner starts a run every 200 ms
 * (a poll) until one is rendered or the block ends. The process ends by
 * itself when the block's promise settles and nothing else holds it open.
 */
const RUNNER_JS = `'use strict';
const { AgentLedgerClient } = require('@agent-ledger/client');
const block = require(process.argv[2]);
const values = JSON.parse(process.env.SNIPPET_VALUES || '{}');
const client = new AgentLedgerClient({ baseUrl: process.env.SNIPPET_SERVICE_URL, apiKey: process.env.AGENT_LEDGER_API_KEY });
const rendered = new AbortController();
const render = (event) => {
  console.log('render: ' + event.type + ' of ' + event.streamName);
  rendered.abort();
};
let running = true;
async function kick() {
  while (running && !rendered.signal.aborted) {
    await client.startRun({ agent: 'time-teller', input: 'tick' });
    await new Promise((resolve) => {
      const timer = setTimeout(resolve, 200);
      rendered.signal.addEventListener('abort', () => { clearTimeout(timer); resolve(); }, { once: true });
    });
  }
}
const kicking = process.env.SNIPPET_KICK === '1' ? kick() : Promise.resolve();
block
  .default({ ...values, client, signal: rendered.signal, render })
  .finally(() => { running = false; })
  .then(() => kicking)
  .catch((error) => {
    console.error(error);
    process.exitCode = 1;
  });
`;

interface NodeRun {
  readonly output: () => string;
  readonly exited: Promise<number | null>;
  kill(): void;
}

describe('the TypeScript blocks of README.md, docs/client.md and docs/walkthrough.md, compiled and run in the starter (e2e)', () => {
  jest.setTimeout(scaled(120_000));
  const snippets = FILES.flatMap((file) => snippetsOf(file, readFileSync(join(root, file), 'utf8')));
  const sources = snippets.map(snippetSource);
  const before = snippetSource(fixture(README_BEFORE));
  const beforeInMain = snippetSource({ ...fixture(README_BEFORE_IN_MAIN), line: 81 });
  const admin: TestKey = testKey('docs', ['runs:submit', 'runs:read', 'runs:approve', 'audit:read', 'operate', 'metrics:read']);
  let work: string;
  let compiled: CompiledSnippets;
  let service: HttpService;
  let client: AgentLedgerClient;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'agent-ledger-doc-snippets-'));
    compiled = compileSnippets([...sources, before, beforeInMain], work);
    writeFileSync(join(compiled.projectDir, 'redirect.js'), REDIRECT_JS);
    writeFileSync(join(compiled.projectDir, 'runner.js'), RUNNER_JS);
    const agents = join(work, 'agents');
    mkdirSync(agents);
    service = await startHttpService({ agentsFile: agentsFile(agents), env: { API_KEYS: apiKeysEnv([admin]) } });
    client = new AgentLedgerClient({ baseUrl: service.baseUrl, apiKey: admin.key });
  }, scaled(120_000));

  afterAll(async () => {
    await service?.stop();
    if (work !== undefined) rmSync(work, { recursive: true, force: true });
  });

  /** `node <args>` in the emitted project, with the packages found as the e2e tier finds them, the service's URL and the key. */
  function startNode(args: readonly string[], env: Record<string, string> = {}): NodeRun {
    const resolution = packageResolution();
    const child = spawn(process.execPath, [...resolution.args, '-r', join(compiled.projectDir, 'redirect.js'), ...args], {
      cwd: compiled.projectDir,
      env: { ...process.env, ...resolution.env, SNIPPET_SERVICE_URL: service.baseUrl, AGENT_LEDGER_API_KEY: admin.key, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve, reject) => {
      child.once('error', reject);
      child.once('exit', (code) => resolve(code));
    });
    return { output: () => output, exited, kill: () => child.kill('SIGKILL') };
  }

  /** Runs a block to its end; throws, naming it, when it fails or does not end within the deadline (scaled). */
  async function runToTheEnd(source: SnippetSource, values: Record<string, JsonValue>): Promise<string> {
    const file = compiled.javascript.get(source) as string;
    const kick = source.snippet.given.includes('signal') && source.snippet.given.includes('render');
    const run =
      source.kind === 'script' ? startNode([file]) : startNode([join(compiled.projectDir, 'runner.js'), file], { SNIPPET_VALUES: JSON.stringify(values), SNIPPET_KICK: kick ? '1' : '0' });
    const limitMs = scaled(60_000);
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<'deadline'>((resolve) => (timer = setTimeout(() => resolve('deadline'), limitMs)));
    const code = await Promise.race([run.exited, deadline]).finally(() => clearTimeout(timer));
    const tail = run.output().slice(-4000);
    if (code === 'deadline') {
      run.kill();
      throw new Error(`${whereOf(source.snippet)} did not end in ${limitMs / 1000} s (a for await over a stream that never ends? followRun ends when the run settles). Its output:\n${tail}`);
    }
    if (code !== 0) throw new Error(`${whereOf(source.snippet)} failed (exit ${code}). Its output:\n${tail}`);
    if (process.env.DEBUG_SNIPPETS) process.stderr.write(`==== ${whereOf(source.snippet)}\n${tail}\n`);
    return run.output();
  }

  // ── The values of the blocks given values, made by the test ──────────────

  async function startedInteractive(agent: string, status: string): Promise<string> {
    const started = await client.startRun({ agent, input: agent === 'file-clerk' ? 'Write the report' : 'Read the notes', mode: 'interactive' });
    if (started.run.status !== status) throw new Error(`A run of ${agent} is ${started.run.status}, not ${status}`);
    return started.runId;
  }

  /** Polls `probe` until it says yes, or throws after a deadline (scaled). */
  async function eventually(probe: () => Promise<boolean>, what: string): Promise<void> {
    const deadline = Date.now() + scaled(15_000);
    while (!(await probe())) {
      if (Date.now() > deadline) throw new Error(`Not in time: ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  const VALUES: Readonly<Record<string, () => Promise<JsonValue>>> = {
    /** A completed run, in the read models too. */
    runId: async () => {
      const runId = await startedInteractive('time-teller', 'COMPLETED');
      await client.waitForSettled(runId, { settleOn: 'terminal', timeoutMs: scaled(15_000) });
      return runId;
    },
    /**
     * A file-clerk run waiting for approval, with a newer one after it: the
     * block approves the newest pending request of file-clerk
     * (`approvals[0]`) and denies this one.
     */
    otherRunId: async () => {
      const older = await startedInteractive('file-clerk', 'WAITING_FOR_APPROVAL');
      const newer = await startedInteractive('file-clerk', 'WAITING_FOR_APPROVAL');
      await eventually(async () => (await client.listApprovals({ state: 'pending', agent: 'file-clerk', limit: 1 })).approvals[0]?.runId === newer, `${newer} the newest pending approval`);
      return older;
    },
    /** A ticket-asker run waiting for input. */
    askingRunId: () => startedInteractive('ticket-asker', 'WAITING_FOR_INPUT'),
    /** A run to cancel: a ticket-asker run waiting for input (not a file-clerk one, which the approvals of the same block would list). */
    unwantedRunId: () => startedInteractive('ticket-asker', 'WAITING_FOR_INPUT'),
    /** No such agent: the block's first branch (`400 INVALID_FIELD`, field `agent`). */
    agent: () => Promise.resolve('no-such-agent'),
    input: () => Promise.resolve('Write the report'),
  };
  const MADE_BY_THE_RUNNER = new Set(['client', 'signal', 'render']);

  async function valuesOf(source: SnippetSource): Promise<Record<string, JsonValue>> {
    const values: Record<string, JsonValue> = {};
    for (const given of source.snippet.given) {
      if (MADE_BY_THE_RUNNER.has(given)) continue;
      const make = VALUES[given];
      if (make === undefined) throw new Error(`${whereOf(source.snippet)}: the test makes no value for "${given}" (it makes ${[...Object.keys(VALUES), ...MADE_BY_THE_RUNNER].join(', ')})`);
      values[given] = await make();
    }
    return values;
  }

  // ── The tests ────────────────────────────────────────────────────────────

  it('finds the blocks of both files; the blocks only compiled are the ones listed, with why', () => {
    for (const file of FILES) expect(snippets.filter((snippet) => snippet.file === file).length).toBeGreaterThan(0);
    const compileOnly = snippets.filter((snippet) => snippet.compileOnly);
    const unlisted = compileOnly.filter((snippet) => !COMPILE_ONLY.some((entry) => entry.file === snippet.file && snippet.code.includes(entry.holds)));
    expect(unlisted.map(whereOf)).toEqual([]);
    const stale = COMPILE_ONLY.filter((entry) => compileOnly.filter((snippet) => snippet.file === entry.file && snippet.code.includes(entry.holds)).length !== 1);
    expect(stale.map((entry) => `${entry.file}: ${entry.holds}`)).toEqual([]);
    expect(sources.filter((source) => source.kind === 'declarations' && !source.snippet.compileOnly).map((source) => whereOf(source.snippet))).toEqual([]);
  });

  it("the starter's settings have no error of their own", () => {
    expect(compiled.global).toEqual([]);
  });

  describe.each(sources.map((source) => [whereOf(source.snippet), source] as const))('%s', (_where, source) => {
    it(source.snippet.compileOnly ? 'compiles (not run: see COMPILE_ONLY)' : 'compiles, and runs to its end', async () => {
      const diagnostics = compiled.diagnostics.get(source) ?? [];
      if (diagnostics.length > 0) throw new Error(`${whereOf(source.snippet)} does not compile with the starter's settings:\n${diagnostics.join('\n')}`);
      if (source.snippet.compileOnly) return;
      await runToTheEnd(source, await valuesOf(source));
    });
  });

  it("can fail: the README's block before issue 26 does not compile in the starter's CommonJS (top-level await)", () => {
    const diagnostics = compiled.diagnostics.get(before) ?? [];
    expect(diagnostics.join('\n')).toMatch(/\(README\.md before issue 26\):8[23]: TS1309: The current file is a CommonJS module and cannot use 'await' at the top level/);
  });

  it('can fail: the same block in an async main compiles, and never ends after RunCompleted (runEvents); the test says so', async () => {
    expect(compiled.diagnostics.get(beforeInMain)).toEqual([]);
    const run = startNode([compiled.javascript.get(beforeInMain) as string]);
    try {
      await eventually(async () => run.output().includes('RunCompleted'), 'the old block to print RunCompleted');
      // The property under test is that it does not end: a second after the last event is a bound that tells it apart from a script that ends.
      let timer: NodeJS.Timeout | undefined;
      const waited = new Promise<'still running'>((resolve) => (timer = setTimeout(() => resolve('still running'), 1_000)));
      expect(await Promise.race([run.exited, waited])).toBe('still running');
      clearTimeout(timer);
    } finally {
      run.kill();
    }
    await run.exited;
  });
});
