import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigurationError } from '@agent-ledger/domain';
import { RuntimeMetrics } from '../metrics/runtime-metrics';
import type { WorkerProcessesOptions } from './worker-processes-options';
import { WorkerProcessSupervisor } from './worker-process-supervisor';

/** A stand-in worker process: reports 3 tool executions, then waits; on SIGTERM it exits 0, unless told to ignore it. */
const ENTRY = `
if (process.env.IGNORE_SIGTERM === '1') process.on('SIGTERM', () => undefined);
else process.on('SIGTERM', () => process.exit(0));
// Sent once the handler is in place: a parent that acts on the report cannot signal a process still on its default handler.
process.send({ type: 'agent-ledger:metrics', snapshot: { counters: { toolExecutions: 3 }, labelled: {} } });
setInterval(() => undefined, 1000);
`;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until<T>(probe: () => T | undefined, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('WorkerProcessSupervisor', () => {
  let dir: string;
  let entry: string;
  let supervisor: WorkerProcessSupervisor | undefined;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'worker-process-supervisor-'));
    entry = join(dir, 'worker.js');
    writeFileSync(entry, ENTRY);
  });

  afterEach(async () => {
    await supervisor?.beforeApplicationShutdown();
    supervisor = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  function start(processes: Partial<WorkerProcessesOptions>, metrics = new RuntimeMetrics()): WorkerProcessSupervisor {
    supervisor = new WorkerProcessSupervisor({ workers: { processes: { count: 2, entry, restartDelayMs: 50, ...processes } } }, metrics);
    supervisor.onApplicationBootstrap();
    return supervisor;
  }

  it('starts the worker processes, adds their counts, starts one again after SIGKILL (its counts kept), and stops them all', async () => {
    const metrics = new RuntimeMetrics();
    const s = start({}, metrics);
    expect(s.count).toBe(2);
    await until(() => (metrics.get('toolExecutions') === 6 ? true : undefined), 'both reports');
    const [first, second] = s.states().map((state) => state.pid as number);
    expect(first).toEqual(expect.any(Number));
    process.kill(first as number, 'SIGKILL');
    const successor = await until(() => {
      const pid = s.states()[0]?.pid;
      return pid !== null && pid !== undefined && pid !== first ? pid : undefined;
    }, 'worker process 1 started again');
    expect(s.states()).toEqual([
      { number: 1, pid: successor, restarts: 1 },
      { number: 2, pid: second, restarts: 0 },
    ]);
    expect(metrics.get('workerProcessRestarts')).toBe(1);
    // The killed one's 3, the other's 3, its successor's 3.
    await until(() => (metrics.get('toolExecutions') === 9 ? true : undefined), "the successor's report");

    await s.beforeApplicationShutdown();
    expect([alive(successor), alive(second as number)]).toEqual([false, false]);
    // Stopped on purpose: not started again.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(s.states().map((state) => state.pid)).toEqual([null, null]);
    expect(metrics.get('workerProcessRestarts')).toBe(1);
  });

  it('kills a worker process that does not stop within stopTimeoutMs of SIGTERM', async () => {
    const metrics = new RuntimeMetrics();
    const s = start({ count: 1, stopTimeoutMs: 300, env: { ...process.env, IGNORE_SIGTERM: '1' } }, metrics);
    const pid = await until(() => s.states()[0]?.pid ?? undefined, 'the worker process');
    // Its report comes after its SIGTERM handler is installed.
    await until(() => (metrics.get('toolExecutions') === 3 ? true : undefined), 'its report');
    const asked = Date.now();
    await s.beforeApplicationShutdown();
    expect(Date.now() - asked).toBeGreaterThanOrEqual(290);
    expect(alive(pid)).toBe(false);
  });

  it('starts none for a count of 0, and refuses an entry that does not exist, naming it', () => {
    const none = new WorkerProcessSupervisor({ workers: { processes: { count: 0, entry } } }, new RuntimeMetrics());
    none.onApplicationBootstrap();
    expect(none.count).toBe(0);
    expect(none.states()).toEqual([]);
    const missing = new WorkerProcessSupervisor({ workers: { processes: { count: 1, entry: join(dir, 'missing.js') } } }, new RuntimeMetrics());
    expect(() => missing.onApplicationBootstrap()).toThrow(ConfigurationError);
    expect(() => missing.onApplicationBootstrap()).toThrow(`workers.processes.entry: ${join(dir, 'missing.js')} does not exist`);
  });
});
