import { Injectable } from '@nestjs/common';
import { InvalidFieldError, RunAlreadyExistsError } from '@agent-ledger/domain';
import { RunService } from './run-service';
import { IdempotencyKeyReusedError, runIdForIdempotencyKey, sameJson } from './idempotency';
import type { StartMode, StartRun, StartRunResult } from './start-run.command';
import { runSummaryOf } from './run-summary';

/**
 * Starts runs for the bus through `RunService`, and makes a command with an
 * idempotency key safe to repeat: the key becomes the run id, so the second
 * command is refused by the run's decider (`RUN_ALREADY_EXISTS`, nothing
 * appended) and answered with the existing run instead. The HTTP API's rules.
 */
@Injectable()
export class BusRunStarter {
  constructor(private readonly runs: RunService) {}

  async start(command: StartRun): Promise<StartRunResult> {
    const mode: StartMode = command.mode ?? 'queued';
    if (command.idempotencyKey !== undefined && command.runId !== undefined) {
      throw new InvalidFieldError('idempotencyKey', 'must not be given with runId (the run id is derived from the key)');
    }
    const runId = command.idempotencyKey === undefined ? command.runId : runIdForIdempotencyKey(command.idempotencyKey);
    const request = { agent: command.agent, input: command.input, runId };
    try {
      if (mode === 'queued') return { mode, runId: await this.runs.enqueue(request), status: 'QUEUED', replayed: false };
      const { runId: id, state, segment } = await this.runs.runInteractive(request);
      return { mode, runId: id, status: state.status ?? 'RUNNING', replayed: false, segment: segment.kind, run: runSummaryOf(id, state), state };
    } catch (error) {
      if (!(error instanceof RunAlreadyExistsError) || command.idempotencyKey === undefined || runId === undefined) throw error;
      return this.replay(runId, mode, command);
    }
  }

  private async replay(runId: string, mode: StartMode, command: StartRun): Promise<StartRunResult> {
    const state = await this.runs.get(runId);
    if (state.agent !== command.agent) throw new IdempotencyKeyReusedError(runId, 'agent');
    if (state.mode !== mode) throw new IdempotencyKeyReusedError(runId, 'mode');
    if (!sameJson(state.input, command.input)) throw new IdempotencyKeyReusedError(runId, 'input');
    const status = state.status ?? 'QUEUED';
    return mode === 'queued'
      ? { mode, runId, status, replayed: true }
      : { mode, runId, status, replayed: true, segment: null, run: runSummaryOf(runId, state), state };
  }
}
