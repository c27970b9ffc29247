import { randomUUID } from 'node:crypto';
import type { ModelResponse, RunEvent, StepTool } from '@agent-ledger/domain';
import { createRunDecider, encodeEvent } from '@agent-ledger/domain';
import { RunHistory } from '@agent-ledger/domain/testing';
import type { EventStore } from '@agent-ledger/event-store';
import { ExpectedRevision } from '@agent-ledger/event-store';
import { runStreamName } from '../persistence/run-streams';

/*
 * Test support: the histories of runs that wait for a person's decision,
 * built through the run decider (so they are histories the rules allow),
 * for tests that drive the decision routes and commands on a real store.
 */

const SECOND = 1000;
const WORKER = 'worker:test:1';
const LEASE = { owner: WORKER, attempt: 1 };
const decider = createRunDecider();
const APPEND: StepTool = { name: 'files.append', effect: 'NON_IDEMPOTENT_WRITE' };
const ASK: StepTool = { name: 'user.ask', effect: 'READ_ONLY' };
const appendCall: ModelResponse = { type: 'toolCalls', calls: [{ toolName: 'files.append', arguments: { path: 'log.txt', content: 'hi' } }] };
const askCall: ModelResponse = { type: 'toolCalls', calls: [{ toolName: 'user.ask', arguments: { question: 'which ticket?' } }] };

/** A run of `agent` claimed by a worker whose round 0 asked for `response`, at `t0`. */
function responded(runId: string, agent: string, t0: number, response: ModelResponse): RunHistory {
  return new RunHistory(decider, runId)
    .send({ type: 'RequestRun', data: { runId, agent, input: 'go', mode: 'queued', requestedBy: { kind: 'bus', id: 'test' } }, metadata: { now: t0 } })
    .claim(WORKER, t0)
    .startLlm(LEASE, 0, t0)
    .respond(LEASE, 0, response, t0);
}

/** Histories of runs in each state a decision needs, recorded before `now` (so a service's clock is after them). */
export const decisionHistories = {
  /** Waits for approval of a `files.append` (a denial ends the run). */
  waitingForApproval(runId: string, agent: string, now = Date.now()): readonly RunEvent[] {
    const t0 = now - 60 * SECOND;
    return responded(runId, agent, t0, appendCall).send({
      type: 'RequestApproval',
      data: { runId, ...LEASE, round: 0, calls: [{ callIndex: 0, effect: 'NON_IDEMPOTENT_WRITE', requirement: 'write' }], onDenial: 'endRun' },
      metadata: { now: t0 },
    }).events;
  },
  /** Waits for the input `user.ask` asked for. */
  waitingForInput(runId: string, agent: string, now = Date.now()): readonly RunEvent[] {
    const t0 = now - 60 * SECOND;
    return responded(runId, agent, t0, askCall)
      .startTool(LEASE, 0, 0, ASK, t0)
      .send({ type: 'RequestInput', data: { runId, ...LEASE, round: 0, callIndex: 0, prompt: 'Which ticket?' }, metadata: { now: t0 } }).events;
  },
  /** Dead-lettered (WRITE_INTERRUPTED) while a non-idempotent append was in flight: a requeue needs a resolution. */
  deadLetteredMidAppend(runId: string, agent: string, now = Date.now()): readonly RunEvent[] {
    const t0 = now - 3600 * SECOND;
    return responded(runId, agent, t0, appendCall)
      .startTool(LEASE, 0, 0, APPEND, t0)
      .reap(t0 + 1800 * SECOND).events;
  },
};

/** Appends a run's history to a new `run-<runId>` stream, with each type's current schema version. */
export async function seedRun(store: EventStore, runId: string, events: readonly RunEvent[]): Promise<void> {
  await store.append(
    runStreamName(runId),
    events.map((e) => ({ id: randomUUID(), ...encodeEvent(e) })),
    { expectedRevision: ExpectedRevision.NO_STREAM },
  );
}

/** The type and stored payload of every event of `stream` (none when it does not exist). */
export async function storedEvents(store: EventStore, stream: string): Promise<Array<{ type: string; data: Record<string, unknown> }>> {
  const read = await store.readStream(stream);
  return read.events.map((e) => ({ type: e.type, data: e.data as Record<string, unknown> }));
}
