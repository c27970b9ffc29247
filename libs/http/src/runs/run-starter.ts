import { Injectable } from '@nestjs/common';
import type { RunState } from '@agent-ledger/domain';
import { InvalidFieldError, RunAlreadyExistsError } from '@agent-ledger/domain';
import type { SegmentOutcome } from '@agent-ledger/runtime';
import { IdempotencyKeyReusedError, runIdForIdempotencyKey, RunService, sameJson } from '@agent-ledger/runtime';
import type { StartMode, StartRunDto } from './run-dtos';

/** What starting a run gave. `replayed`: the idempotency key named an existing run, and nothing new was started. */
export type StartRunOutcome =
  | { readonly mode: 'queued'; readonly runId: string; readonly replayed: boolean; readonly state: RunState | null }
  | { readonly mode: 'interactive'; readonly runId: string; readonly replayed: boolean; readonly state: RunState; readonly segment: SegmentOutcome['kind'] | null };

/**
 * Starts runs for the API through `RunService`, and makes a request with an
 * idempotency key safe to repeat: the key becomes the run id, so the second
 * request is refused by the run's decider (`RUN_ALREADY_EXISTS`, nothing
 * appended) and answered with the existing run instead.
 */
@Injectable()
export class RunStarter {
  constructor(private readonly runs: RunService) {}

  /**
   * @throws InvalidFieldError (unknown agent, `runId` with `idempotencyKey`)
   * @throws RunAlreadyExistsError for an explicit `runId` that exists
   * @throws IdempotencyKeyReusedError when the key's run was started with another agent, mode or input
   */
  async start(request: StartRunDto): Promise<StartRunOutcome> {
    const mode: StartMode = request.mode ?? 'queued';
    if (request.idempotencyKey !== undefined && request.runId !== undefined) {
      throw new InvalidFieldError('idempotencyKey', 'must not be given with runId (the run id is derived from the key)');
    }
    const runId = request.idempotencyKey === undefined ? request.runId : runIdForIdempotencyKey(request.idempotencyKey);
    const runRequest = { agent: request.agent, input: request.input, runId };
    try {
      if (mode === 'queued') {
        return { mode, runId: await this.runs.enqueue(runRequest), replayed: false, state: null };
      }
      const result = await this.runs.runInteractive(runRequest);
      return { mode, runId: result.runId, replayed: false, state: result.state, segment: result.segment.kind };
    } catch (error) {
      if (!(error instanceof RunAlreadyExistsError) || request.idempotencyKey === undefined || runId === undefined) throw error;
      return this.replay(runId, mode, request);
    }
  }

  private async replay(runId: string, mode: StartMode, request: StartRunDto): Promise<StartRunOutcome> {
    const state = await this.runs.get(runId);
    if (state.agent !== request.agent) throw new IdempotencyKeyReusedError(runId, 'agent');
    if (state.mode !== mode) throw new IdempotencyKeyReusedError(runId, 'mode');
    if (!sameJson(state.input, request.input)) throw new IdempotencyKeyReusedError(runId, 'input');
    return mode === 'queued' ? { mode, runId, replayed: true, state } : { mode, runId, replayed: true, state, segment: null };
  }
}
