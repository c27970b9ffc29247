import type { RunStatusRow } from '../contract/run-status-row';
import type { RunStatus } from '../contract/vocabulary';
import { TERMINAL_RUN_STATUSES, WAITING_RUN_STATUSES } from '../contract/vocabulary';
import { AgentLedgerApiError } from '../errors/api-error';
import { AgentLedgerConnectionError } from '../errors/connection-error';
import { AgentLedgerWaitError } from '../errors/wait-error';
import type { RequestOptions } from '../http/transport';
import { sleep } from '../events/sleep';

/** What counts as settled for {@link waitForSettled}. */
export type SettleOn = 'terminalOrWaiting' | 'terminal';

/** Options of `waitForSettled`. */
export interface WaitForSettledOptions {
  /** Gives up with {@link AgentLedgerWaitError} `aborted`. */
  readonly signal?: AbortSignal;
  /** Gives up with {@link AgentLedgerWaitError} `timeout` after this long. @default 60000 */
  readonly timeoutMs?: number;
  /** The pause between two reads of the run. @default 250 */
  readonly pollIntervalMs?: number;
  /**
   * `terminalOrWaiting` (default): resolve once the run is `COMPLETED`,
   * `FAILED` or `CANCELLED`, or waits for a person (`WAITING_FOR_APPROVAL`,
   * `WAITING_FOR_INPUT`): nothing more happens until someone acts.
   * `terminal`: only the three terminal statuses (a waiting run keeps the
   * wait going until someone decides, answers or cancels, or the timeout).
   */
  readonly settleOn?: SettleOn;
}

/** Whether `status` ends a wait for `settleOn`. */
export function isSettled(status: RunStatus, settleOn: SettleOn = 'terminalOrWaiting'): boolean {
  if ((TERMINAL_RUN_STATUSES as readonly RunStatus[]).includes(status)) return true;
  return settleOn === 'terminalOrWaiting' && (WAITING_RUN_STATUSES as readonly RunStatus[]).includes(status);
}

/**
 * Polls `getRun` until the run is settled (see {@link WaitForSettledOptions.settleOn}),
 * within `timeoutMs`. `404 RUN_NOT_FOUND` (the read model has not seen the
 * run yet: it follows the store a few ms behind), a 5xx and an unreachable
 * service are waited through, until the deadline; any other error (401,
 * 403, 400) is thrown at once.
 */
export async function waitForSettled(getRun: (runId: string, options: RequestOptions) => Promise<RunStatusRow>, runId: string, options: WaitForSettledOptions = {}): Promise<RunStatusRow> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const pollIntervalMs = options.pollIntervalMs ?? 250;
  const settleOn = options.settleOn ?? 'terminalOrWaiting';
  if (!(timeoutMs > 0) || !Number.isFinite(timeoutMs)) throw new TypeError(`timeoutMs must be a positive finite number of ms (got ${timeoutMs})`);
  if (!(pollIntervalMs > 0) || !Number.isFinite(pollIntervalMs)) throw new TypeError(`pollIntervalMs must be a positive finite number of ms (got ${pollIntervalMs})`);
  const deadline = Date.now() + timeoutMs;
  let lastSeen: RunStatusRow | null = null;
  let lastError: unknown;
  const giveUp = (reason: 'timeout' | 'aborted'): AgentLedgerWaitError => new AgentLedgerWaitError(reason, runId, lastSeen, { cause: lastError, timeoutMs });
  for (;;) {
    if (options.signal?.aborted === true) throw giveUp('aborted');
    const remaining = deadline - Date.now();
    if (remaining <= 0) throw giveUp('timeout');
    try {
      const row = await getRun(runId, { ...(options.signal === undefined ? {} : { signal: options.signal }), timeoutMs: remaining });
      lastSeen = row;
      if (isSettled(row.status, settleOn)) return row;
    } catch (error) {
      if (error instanceof AgentLedgerConnectionError) {
        if (error.reason === 'aborted') throw giveUp('aborted');
        if (error.reason === 'timeout') throw giveUp('timeout');
        lastError = error;
      } else if (error instanceof AgentLedgerApiError && (error.code === 'RUN_NOT_FOUND' || error.status >= 500)) {
        lastError = error;
      } else {
        throw error;
      }
    }
    const pause = Math.min(pollIntervalMs, deadline - Date.now());
    if (pause > 0 && !(await sleep(pause, options.signal))) throw giveUp('aborted');
  }
}
