/**
 * docs/library.md, "Worker processes: every core": its two blocks (`host.ts`
 * and `worker.ts`) compile in the starter's settings and run as written, in
 * a temporary folder: the host, whose own workers are 0, starts its worker
 * processes, one of which executes a queued run (its claim names that
 * process's pid, not the host's); SIGTERM to the host drains them and both
 * exit. On a machine of one core `auto` means no worker process: there the
 * run must stay queued.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createRunDecider } from '@agent-ledger/domain';
import { ExpectedRevision, SqliteEventStore } from '@agent-ledger/event-store';
import { runStreamName, toEventData } from '@agent-ledger/runtime';
import { eventually } from '../e2e/support/http-service';
import { scaled } from '../support/time-scale';
import type { SnippetSource } from './support/markdown-snippets';
import { compileSnippets, packageResolution, snippetSource, snippetsOf } from './support/markdown-snippets';

jest.setTimeout(scaled(180_000));

const root = join(__dirname, '..', '..');

function blockStarting(sources: readonly SnippetSource[], firstLine: string): SnippetSource {
  const found = sources.filter((source) => source.snippet.code.startsWith(firstLine));
  if (found.length !== 1) throw new Error(`docs/library.md has ${found.length} blocks starting with "${firstLine}"`);
  return found[0] as SnippetSource;
}

describe('docs/library.md: worker processes', () => {
  let dir: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'agent-ledger-worker-processes-doc-'));
  });

  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('the host and worker scripts compile, and a queued run executes in a worker process; SIGTERM stops both', async () => {
    const sources = snippetsOf('docs/library.md', readFileSync(join(root, 'docs', 'library.md'), 'utf8')).map(snippetSource);
    const host = blockStarting(sources, '// host.ts');
    const worker = blockStarting(sources, '// worker.ts');
    // A Nest host's project depends on Nest (the starter, a plugin's project, does not).
    const compiled = compileSnippets([host, worker], join(dir, 'build'), { packages: ['@nestjs/common', '@nestjs/core'] });
    expect(compiled.global).toEqual([]);
    expect([...compiled.diagnostics.values()].flat()).toEqual([]);
    const hostJs = compiled.javascript.get(host) as string;
    // The host names its worker script `worker.js` beside it, as a user's build emits them.
    copyFileSync(compiled.javascript.get(worker) as string, join(dirname(hostJs), 'worker.js'));

    const cwd = join(dir, 'app');
    mkdirSync(cwd, { recursive: true });
    const resolution = packageResolution();
    let output = '';
    const child = spawn(process.execPath, [...resolution.args, hostJs], { cwd, env: { ...process.env, NODE_PATH: join(root, 'node_modules'), ...resolution.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const storePath = join(cwd, 'data', 'my-app', 'agent-ledger.sqlite');
      await eventually(async () => (existsSync(storePath) ? true : undefined), "the host's store", 90_000);
      // A queued run of the doc's agent, requested in the store as the bus would.
      const store = SqliteEventStore.open({ path: storePath });
      const runId = 'doc-worker-processes-1';
      try {
        const decider = createRunDecider();
        const decision = decider.decide({ type: 'RequestRun', data: { runId, agent: 'clock', input: 'what time is it?', mode: 'queued', requestedBy: { kind: 'bus', id: 'docs-test' }, maxIterations: 2 }, metadata: { now: Date.now() } }, decider.initialState());
        if (decision.kind !== 'accepted') throw new Error(`RequestRun was not accepted: ${JSON.stringify(decision)}`);
        await store.append(runStreamName(runId), toEventData(runStreamName(runId), 0n, decision.events, { correlationId: runId }), { expectedRevision: ExpectedRevision.NO_STREAM });
        const types = async () => (await store.readStream(runStreamName(runId))).events;
        if (availableParallelism() < 2) {
          // `auto` is no worker process on one core, and the host runs no worker: the run waits.
          await new Promise((resolve) => setTimeout(resolve, 2_000));
          expect((await types()).map((e) => e.type)).toEqual(['RunRequested']);
        } else {
          const events = await eventually(async () => {
            const read = await types();
            return read.some((e) => e.type === 'RunCompleted') ? read : undefined;
          }, 'the run completed in a worker process', 90_000).catch((error: unknown) => {
            throw new Error(`${String(error)}; the host printed:\n${output}`);
          });
          const claim = events.find((e) => e.type === 'RunClaimed');
          const owner = String((claim?.data as { owner?: unknown } | undefined)?.owner);
          expect(owner).toMatch(/^worker:[^:]+:\d+:/);
          expect(owner).not.toContain(`:${child.pid}:`);
        }
      } finally {
        await store.close();
      }
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });
});
