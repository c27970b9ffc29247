/**
 * `serve` with worker processes (`WORKER_PROCESSES`), as processes: the runs
 * execute in the worker process it starts, whose counters its `/metrics`
 * counts; a worker process killed with SIGKILL is started again and the run
 * it held is taken back by the reaper and claimed by its successor; SIGTERM
 * drains both; a worker process whose service is killed stops by itself.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CliProcess, CliResult } from './support/cli-process';
import { printedTypes, runCliProcess, startCliProcess } from './support/cli-process';
import type { HoldingModelServer } from './support/http-service';
import { eventually, startHoldingModelServer, testAgentsYaml } from './support/http-service';
import { scaled } from '../support/time-scale';

jest.setTimeout(scaled(180_000));

function expectExit(result: CliResult, code: number): void {
  if (result.code !== code) throw new Error(`expected exit ${code}, got ${result.code}\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The value of an unlabelled sample, or of the sample with these labels, in a Prometheus text page. */
function metric(page: string, name: string, labels = ''): number | undefined {
  const line = page.split('\n').find((l) => l.startsWith(`${name}${labels} `));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('serve with worker processes (e2e)', () => {
  let dataDir: string;
  let model: HoldingModelServer;
  let serve: CliProcess | undefined;

  beforeEach(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'agent-ledger-worker-processes-'));
    model = await startHoldingModelServer();
    writeFileSync(join(dataDir, 'agents.yaml'), testAgentsYaml(model.baseUrl));
  });

  afterEach(async () => {
    await serve?.stop('SIGKILL');
    await model.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function startServe(): Promise<{ url: string; servicePid: number; workerPid: number }> {
    serve = startCliProcess(['serve', '--port', '0'], {
      AGENT_LEDGER_DATA_DIR: dataDir,
      AGENTS_CONFIG: join(dataDir, 'agents.yaml'),
      WORKER_PROCESSES: '1',
      WORKER_CONCURRENCY: '2',
      LEASE_SECONDS: '3',
      REAPER_INTERVAL_MS: '250',
    });
    const [, port] = await serve.waitFor(/listening on http:\/\/127\.0\.0\.1:(\d+)/, 90_000);
    const [, workerPid, servicePid] = await serve.waitFor(/runs execute in 1 worker process of 2 workers each \(pids (\d+); WORKER_PROCESSES\); this process \(pid (\d+)\) serves the API/);
    await serve.waitFor(new RegExp(`agent-ledger worker started: pid ${workerPid} \\(worker process 1 of pid ${servicePid}\\), 2 workers, reaper off, audit-gap saga off`), 90_000);
    return { url: `http://127.0.0.1:${port}`, servicePid: Number(servicePid), workerPid: Number(workerPid) };
  }

  it('executes runs in the worker process, restarts it after SIGKILL (its run reaped and claimed again), and drains both on SIGTERM', async () => {
    const { url, workerPid } = await startServe();
    const env = { AGENT_LEDGER_URL: url };

    const started = await runCliProcess(['runs', 'start', '--agent', 'writer', '--input', 'report', '-q'], env);
    expectExit(started, 0);
    const written = await runCliProcess(['events', 'follow', started.stdout.trim()], env);
    expectExit(written, 0);
    expect(printedTypes(written.stdout).at(-1)).toBe('RunCompleted');
    // The claim is the worker process's: its owner names that process's pid.
    expect(written.stdout).toMatch(new RegExp(`RunClaimed owner=worker:[^:]+:${workerPid}:`));
    // The service's /metrics counts the worker process's tool executions (it reports them every second).
    const page = await eventually(async () => {
      const answer = await fetch(`${url}/metrics`).then((r) => r.text());
      return (metric(answer, 'agent_ledger_tool_executions_total') ?? 0) >= 2 ? answer : undefined;
    }, "the worker process's tool executions in the service's /metrics");
    expect(metric(page, 'agent_ledger_worker_processes', '{state="running"}')).toBe(1);
    expect(metric(page, 'agent_ledger_worker_process_restarts_total')).toBe(0);

    // A run held in the worker process's model call when it is killed.
    const held = await runCliProcess(['runs', 'start', '--agent', 'held', '--input', 'wait', '-q'], env);
    expectExit(held, 0);
    const heldRun = held.stdout.trim();
    await eventually(async () => (model.received() >= 1 ? true : undefined), 'the held model call');
    process.kill(workerPid, 'SIGKILL');
    await eventually(async () => (serve?.stderr().includes(`worker process 1 (pid ${workerPid}) was killed by SIGKILL: starting it again in 1000 ms`) ? true : undefined), 'the restart logged');
    const successorPid = await eventually(async () => {
      const pids = [...(serve as CliProcess).stdout().matchAll(/agent-ledger worker started: pid (\d+) \(worker process 1 of pid \d+\)/g)].map((m) => Number(m[1]));
      return pids.length === 2 ? pids[1] : undefined;
    }, 'the worker process started again', 90_000);
    expect(successorPid).not.toBe(workerPid);
    // The lease (3 s) expires, the service's reaper requeues the run, and the new worker process claims it and calls the model again.
    const follower = startCliProcess(['events', 'follow', heldRun], env);
    try {
      await follower.waitFor(new RegExp(`RunClaimed owner=worker:[^:]+:${successorPid}:`), 60_000);
    } finally {
      await follower.stop('SIGINT');
    }
    await eventually(async () => (model.received() >= 2 ? true : undefined), 'the held model called again by the new worker process');
    const metrics = await fetch(`${url}/metrics`).then((r) => r.text());
    expect(metric(metrics, 'agent_ledger_worker_process_restarts_total')).toBe(1);
    expect(metric(metrics, 'agent_ledger_reaper_actions_total', '{action="requeued"}')).toBeGreaterThanOrEqual(1);
    // The counts of the killed worker process stay in the totals.
    expect(metric(metrics, 'agent_ledger_tool_executions_total')).toBeGreaterThanOrEqual(2);
    expectExit(await runCliProcess(['runs', 'cancel', heldRun], env), 0);
    // The new worker process hears the cancel and aborts its model call (the first call's connection died with the killed process; a drain would wait for a call in flight, up to its deadline).
    await eventually(async () => (model.aborted() >= 2 ? true : undefined), 'the held model call aborted by the cancel', 60_000);

    const stopped = await (serve as CliProcess).stop('SIGTERM');
    serve = undefined;
    expectExit(stopped, 0);
    expect(stopped.stdout).toContain('SIGTERM: shutting down');
    expect(stopped.stdout).toContain('agent-ledger worker stopped');
    expect(alive(successorPid)).toBe(false);
  });

  it('a worker process whose service is killed drains and exits by itself', async () => {
    const { servicePid, workerPid } = await startServe();
    process.kill(servicePid, 'SIGKILL');
    await eventually(async () => (alive(workerPid) ? undefined : true), 'the worker process gone after its service', 60_000);
    await eventually(async () => (serve?.stdout().includes('the supervising process went away: shutting down') ? true : undefined), "the worker process's last words");
  });
});
