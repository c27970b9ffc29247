import { ConfigurationError } from '@agent-ledger/domain';
import { checkWorkerProcessesOptions, MAX_WORKER_PROCESSES, resolveWorkerProcessCount } from './worker-processes-options';

describe('worker processes options', () => {
  it("'auto' is one fewer than the cores (none on one core, at most the maximum); a number is itself", () => {
    expect(resolveWorkerProcessCount('auto', 1)).toBe(0);
    expect(resolveWorkerProcessCount('auto', 2)).toBe(1);
    expect(resolveWorkerProcessCount('auto', 16)).toBe(15);
    expect(resolveWorkerProcessCount('auto', 500)).toBe(MAX_WORKER_PROCESSES);
    expect(resolveWorkerProcessCount(3, 2)).toBe(3);
  });

  it('refuses a bad field, naming it', () => {
    const ok = { count: 2, entry: '/srv/worker.js' } as const;
    expect(() => checkWorkerProcessesOptions(ok, 'workers.processes')).not.toThrow();
    const cases: Array<[object, string]> = [
      [{ ...ok, count: -1 }, 'workers.processes.count must be'],
      [{ ...ok, count: 1.5 }, 'workers.processes.count must be'],
      [{ ...ok, count: MAX_WORKER_PROCESSES + 1 }, 'workers.processes.count must be'],
      [{ ...ok, count: 'all' }, 'workers.processes.count must be'],
      [{ ...ok, entry: ' ' }, 'workers.processes.entry must name'],
      [{ ...ok, args: ['ok', 3] }, 'workers.processes.args must be'],
      [{ ...ok, stopTimeoutMs: 0 }, 'workers.processes.stopTimeoutMs must be'],
      [{ ...ok, restartDelayMs: 'soon' }, 'workers.processes.restartDelayMs must be'],
    ];
    for (const [options, message] of cases) {
      expect(() => checkWorkerProcessesOptions(options as never, 'workers.processes')).toThrow(ConfigurationError);
      expect(() => checkWorkerProcessesOptions(options as never, 'workers.processes')).toThrow(message);
    }
  });
});
