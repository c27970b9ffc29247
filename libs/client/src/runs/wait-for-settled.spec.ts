import type { RunStatusRow } from '../contract/run-status-row';
import type { RunStatus } from '../contract/vocabulary';
import { AgentLedgerApiError } from '../errors/api-error';
import { AgentLedgerConnectionError } from '../errors/connection-error';
import { AgentLedgerWaitError } from '../errors/wait-error';
import type { RequestOptions } from '../http/transport';
import { isSettled, waitForSettled } from './wait-for-settled';

function row(status: RunStatus): RunStatusRow {
  return { runId: 'r1', status } as RunStatusRow;
}

function apiError(status: number, code: string): AgentLedgerApiError {
  return new AgentLedgerApiError({ status, body: { statusCode: status, error: 'e', code, message: 'm' }, request: 'GET /runs/r1' });
}

/** A getRun that answers (or throws) each step in turn, then repeats the last one. */
function scripted(steps: ReadonlyArray<RunStatus | Error>) {
  const calls: RequestOptions[] = [];
  const getRun = async (_runId: string, options: RequestOptions): Promise<RunStatusRow> => {
    calls.push(options);
    const step = steps[Math.min(calls.length - 1, steps.length - 1)] as RunStatus | Error;
    if (step instanceof Error) throw step;
    return row(step);
  };
  return { getRun, calls };
}

describe('waitForSettled', () => {
  it('settles on a terminal status, and by default on a waiting one', () => {
    expect((['COMPLETED', 'FAILED', 'CANCELLED', 'WAITING_FOR_APPROVAL', 'WAITING_FOR_INPUT', 'QUEUED', 'RUNNING'] as const).map((s) => isSettled(s))).toEqual([true, true, true, true, true, false, false]);
    expect((['WAITING_FOR_APPROVAL', 'WAITING_FOR_INPUT', 'COMPLETED'] as const).map((s) => isSettled(s, 'terminal'))).toEqual([false, false, true]);
  });

  it('polls through RUN_NOT_FOUND (read model lag), a 503 and an unreachable service until the run settles', async () => {
    const { getRun, calls } = scripted([apiError(404, 'RUN_NOT_FOUND'), apiError(503, 'STORE_UNAVAILABLE'), new AgentLedgerConnectionError('network', 'GET /runs/r1'), 'QUEUED', 'RUNNING', 'COMPLETED']);
    await expect(waitForSettled(getRun, 'r1', { pollIntervalMs: 1, timeoutMs: 10_000 })).resolves.toEqual(row('COMPLETED'));
    expect(calls).toHaveLength(6);
    expect(calls.every((call) => typeof call.timeoutMs === 'number' && call.timeoutMs > 0 && call.timeoutMs <= 10_000)).toBe(true);
  });

  it('resolves on WAITING_FOR_APPROVAL by default, and waits past it with settleOn: terminal', async () => {
    await expect(waitForSettled(scripted(['RUNNING', 'WAITING_FOR_APPROVAL']).getRun, 'r1', { pollIntervalMs: 1 })).resolves.toEqual(row('WAITING_FOR_APPROVAL'));
    const terminal = scripted(['WAITING_FOR_APPROVAL', 'WAITING_FOR_APPROVAL', 'QUEUED', 'FAILED']);
    await expect(waitForSettled(terminal.getRun, 'r1', { pollIntervalMs: 1, settleOn: 'terminal' })).resolves.toEqual(row('FAILED'));
    expect(terminal.calls).toHaveLength(4);
  });

  it('rejects with AgentLedgerWaitError timeout, carrying the run last seen', async () => {
    const failure = waitForSettled(scripted(['RUNNING']).getRun, 'r1', { pollIntervalMs: 5, timeoutMs: 30 });
    await expect(failure).rejects.toBeInstanceOf(AgentLedgerWaitError);
    await expect(failure).rejects.toMatchObject({ reason: 'timeout', runId: 'r1', lastSeen: row('RUNNING') });
    await expect(failure).rejects.toThrow('Run r1 did not settle within 30 ms (last seen: RUNNING)');
  });

  it('rejects with AgentLedgerWaitError aborted, when aborted before or during the wait', async () => {
    const aborted = new AbortController();
    aborted.abort();
    await expect(waitForSettled(scripted(['COMPLETED']).getRun, 'r1', { signal: aborted.signal })).rejects.toMatchObject({ reason: 'aborted', lastSeen: null });
    const controller = new AbortController();
    const failure = waitForSettled(scripted(['RUNNING']).getRun, 'r1', { signal: controller.signal, pollIntervalMs: 60_000, timeoutMs: 120_000 });
    setTimeout(() => controller.abort(), 5);
    await expect(failure).rejects.toMatchObject({ name: 'AgentLedgerWaitError', reason: 'aborted', lastSeen: row('RUNNING') });
    const duringRequest = waitForSettled(scripted([new AgentLedgerConnectionError('aborted', 'GET /runs/r1')]).getRun, 'r1');
    await expect(duringRequest).rejects.toMatchObject({ name: 'AgentLedgerWaitError', reason: 'aborted' });
  });

  it('throws an error that waiting cannot change at once (401, 403, 400)', async () => {
    const { getRun, calls } = scripted([apiError(401, 'UNAUTHENTICATED')]);
    await expect(waitForSettled(getRun, 'r1')).rejects.toMatchObject({ name: 'AgentLedgerApiError', code: 'UNAUTHENTICATED' });
    expect(calls).toHaveLength(1);
  });

  it('refuses a timeout or a poll interval that is not a positive number', async () => {
    await expect(waitForSettled(scripted(['COMPLETED']).getRun, 'r1', { timeoutMs: 0 })).rejects.toThrow('timeoutMs must be a positive finite number of ms (got 0)');
    await expect(waitForSettled(scripted(['COMPLETED']).getRun, 'r1', { pollIntervalMs: Number.NaN })).rejects.toThrow('pollIntervalMs must be a positive finite number of ms (got NaN)');
  });
});
