import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { JsonValue, RunState } from '@agent-ledger/domain';
import { InvalidFieldError, RunAlreadyExistsError } from '@agent-ledger/domain';
import type { SegmentOutcome } from '@agent-ledger/runtime';
import { RunService } from '@agent-ledger/runtime';
import { IdempotencyKeyReusedError } from './idempotency-key-reused.error';
import type { StartMode, StartRunDto } from './run-dtos';

/** What starting a run gave. `replayed`: the idempotency key named an existing run, and nothing new was started. */
export type StartRunOutcome =
  | { readonly mode: 'queued'; readonly runId: string; readonly replayed: boolean; readonly state: RunState | null }
  | { readonly mode: 'interactive'; readonly runId: string; readonly replayed: boolean; readonly state: RunState; readonly segment: SegmentOutcome['kind'] | null };

/**
 * The run id a client idempotency key stands for: `ik-` and the first 32 hex
 * digits (128 bits) of the key's SHA-256. Deterministic, so a repeated
 * request finds the run its key already created (`RUN_ALREADY_EXISTS`).
 */
export function runIdForIdempotencyKey(key: string): string {
  return `ik-${createHash('sha256').update(key, 'utf8').digest('hex').slice(0, 32)}`;
}

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

/** Deep equality of two JSON values, whatever the order of object keys. */
export function sameJson(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((value: JsonValue, index: number) => sameJson(value, (b as readonly JsonValue[])[index]));
  }
  const ra = a as Readonly<Record<string, JsonValue>>;
  const rb = b as Readonly<Record<string, JsonValue>>;
  const keys = Object.keys(ra).filter((k) => ra[k] !== undefined);
  if (keys.length !== Object.keys(rb).filter((k) => rb[k] !== undefined).length) return false;
  return keys.every((key) => Object.prototype.hasOwnProperty.call(rb, key) && sameJson(ra[key], rb[key]));
}
