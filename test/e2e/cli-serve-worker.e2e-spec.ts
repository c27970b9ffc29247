/**
 * `agent-ledger serve` and `agent-ledger worker` as processes on one data
 * folder: the service with no worker of its own (`WORKER_CONCURRENCY=0`)
 * keeps queued runs queued; a `worker` process started beside it takes them
 * from the same embedded files (scale-out), and both stop cleanly on SIGTERM.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CliProcess, CliResult } from './support/cli-process';
import { printedTypes, runCliProcess, startCliProcess } from './support/cli-process';
import { eventually, request, testAgentsYaml } from './support/http-service';
import { scaled } from '../support/time-scale';

jest.setTimeout(scaled(180_000));

function expectExit(result: CliResult, code: number): void {
  if (result.code !== code) throw new Error(`expected exit ${code}, got ${result.code}\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`);
}

describe('agent-ledger serve and worker (e2e)', () => {
  let dataDir: string;
  let serve: CliProcess | undefined;
  let worker: CliProcess | undefined;

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'agent-ledger-cli-'));
    writeFileSync(join(dataDir, 'agents.yaml'), testAgentsYaml('http://127.0.0.1:9/v1'));
  });

  afterEach(async () => {
    await worker?.stop('SIGKILL');
    await serve?.stop('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('a worker process executes the runs of a serve that has no worker; both stop cleanly on SIGTERM', async () => {
    // Each is one process here (the worker processes of serve and worker are worker-processes.e2e-spec.ts's).
    const storeEnv = { AGENT_LEDGER_DATA_DIR: dataDir, AGENTS_CONFIG: join(dataDir, 'agents.yaml'), WORKER_PROCESSES: '0' };
    serve = startCliProcess(['serve', '--port', '0'], { ...storeEnv, WORKER_CONCURRENCY: '0' });
    const [, port] = await serve.waitFor(/listening on http:\/\/127\.0\.0\.1:(\d+)/, 90_000);
    const env = { AGENT_LEDGER_URL: `http://127.0.0.1:${port}` };

    // No worker anywhere: a queued run stays queued, and can be cancelled at once.
    const first = await runCliProcess(['runs', 'start', '--agent', 'clock', '--input', 'first', '-q'], env);
    expectExit(first, 0);
    const idle = first.stdout.trim();
    const queued = await eventually(async () => {
      const answer = await request<{ status: string }>(env.AGENT_LEDGER_URL, 'GET', `/runs/${idle}`);
      return answer.status === 200 ? answer.body : undefined;
    }, 'the queued run in the read model');
    expect(queued.status).toBe('QUEUED');
    const cancelled = await runCliProcess(['runs', 'cancel', idle], env);
    expectExit(cancelled, 0);
    expect(cancelled.stdout).toBe(`Run ${idle} cancelled (status CANCELLED).\n`);

    const second = await runCliProcess(['runs', 'start', '--agent', 'writer', '--input', 'second', '-q'], env);
    expectExit(second, 0);
    const runId = second.stdout.trim();

    worker = startCliProcess(['worker', '--concurrency', '2'], storeEnv);
    await worker.waitFor(/agent-ledger worker started: pid \d+, 2 workers, reaper every 30000 ms, audit-gap saga on/, 90_000);
    const followed = await runCliProcess(['events', 'follow', runId], env);
    expectExit(followed, 0);
    expect(printedTypes(followed.stdout).at(-1)).toBe('RunCompleted');
    // The claim is the worker process's (its owner names its pid), not the service's.
    expect(followed.stdout).toContain(`RunClaimed owner=worker:${hostname().replace(/[^A-Za-z0-9.-]/g, '-')}:${worker.child.pid}:`);

    const workerExit = await worker.stop('SIGTERM');
    expectExit(workerExit, 0);
    expect(workerExit.stdout).toContain('SIGTERM: shutting down');
    expect(workerExit.stdout).toContain('agent-ledger worker stopped');
    worker = undefined;

    const serveExit = await serve.stop('SIGTERM');
    expectExit(serveExit, 0);
    expect(serveExit.stdout).toContain('SIGTERM: shutting down');
    serve = undefined;
  });

  it('serve and worker exit 3 on a bad setting, naming it; worker refuses WORKER_CONCURRENCY=0', async () => {
    const [badServe, badWorker, idleWorker] = await Promise.all([
      runCliProcess(['serve'], { AGENT_LEDGER_DATA_DIR: dataDir, PORT: 'eighty' }),
      runCliProcess(['worker'], { AGENT_LEDGER_DATA_DIR: dataDir, LEASE_SECONDS: 'long' }),
      runCliProcess(['worker'], { AGENT_LEDGER_DATA_DIR: dataDir, WORKER_CONCURRENCY: '0' }),
    ]);
    expectExit(badServe, 3);
    expect(badServe.stderr).toContain('PORT must be an integer');
    expectExit(badWorker, 3);
    expect(badWorker.stderr).toContain('LEASE_SECONDS must be an integer');
    expectExit(idleWorker, 3);
    expect(idleWorker.stderr).toContain('WORKER_CONCURRENCY is 0');
  });
});
