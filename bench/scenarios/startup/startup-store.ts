/**
 * The store of the start-up benchmark: a long history of finished runs and a
 * few runs still queued, in the embedded store on disk, built quickly.
 *
 * The finished runs are copies of the runs of a small realistic history (the
 * rebuild scenario's generator: the domain's deciders, the runtime's codec),
 * each under a fresh run id (the old id replaced in its stream names, data and
 * metadata) and fresh event ids, its run and audit streams appended whole,
 * hundreds of appends at once (the store's group commit writes them in large
 * transactions). The queued runs are `RunRequested` events decided by the run
 * decider for the benchmark's agent, spread evenly through the history.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { JsonObject } from '@agent-ledger/domain';
import { createRunDecider } from '@agent-ledger/domain';
import type { EventData } from '@agent-ledger/event-store';
import { ExpectedRevision, SqliteEventStore } from '@agent-ledger/event-store';
import { runStreamName, toEventData } from '@agent-ledger/runtime';
import { generateHistory } from '../rebuild/history';

/** A finished run of the template, as JSON of its two streams' events (type, data, metadata), with its run id. */
interface TemplateRun {
  readonly runId: string;
  readonly json: string;
}

/** One stream's events of a template run. */
interface StreamEvents {
  readonly stream: string;
  readonly events: ReadonlyArray<{ readonly type: string; readonly data: JsonObject; readonly metadata: JsonObject }>;
}

/** What was built. */
export interface StartupStore {
  readonly path: string;
  readonly events: number;
  readonly finishedRuns: number;
  readonly queuedRunIds: readonly string[];
  readonly seconds: number;
}

/** Appends in flight before waiting for them (bounds the builder's memory). */
const APPENDS_PER_WAVE = 800;

async function templateRuns(dir: string): Promise<TemplateRun[]> {
  const history = await generateHistory({ path: join(dir, 'template.sqlite'), targetEvents: 4_000, seed: 20261202 });
  const store = SqliteEventStore.open({ path: history.path });
  const byRun = new Map<string, Map<string, StreamEvents['events'][number][]>>();
  try {
    for await (const event of store.readAll({ fromPosition: 'start' })) {
      const runId = event.streamName.replace(/^(run|audit)-/, '');
      const streams = byRun.get(runId) ?? new Map();
      byRun.set(runId, streams);
      const events = streams.get(event.streamName) ?? [];
      streams.set(event.streamName, events);
      events.push({ type: event.type, data: event.data as JsonObject, metadata: event.metadata as JsonObject });
    }
  } finally {
    await store.close();
  }
  return [...byRun].map(([runId, streams]) => ({
    runId,
    json: JSON.stringify([...streams].map(([stream, events]): StreamEvents => ({ stream, events }))),
  }));
}

/**
 * Builds at least `events` events (whole runs) into a new store at `path`,
 * with `queuedRuns` runs of `agent` queued among them.
 */
export async function buildStartupStore(options: {
  readonly path: string;
  readonly templateDir: string;
  readonly events: number;
  readonly queuedRuns: number;
  readonly agent: string;
  readonly log?: (line: string) => void;
}): Promise<StartupStore> {
  const started = Date.now();
  const templates = await templateRuns(options.templateDir);
  const decider = createRunDecider();
  const store = SqliteEventStore.open({ path: options.path, maxBatchSize: 8192 });
  const queuedRunIds: string[] = [];
  let events = 0;
  let finishedRuns = 0;
  let pending: Array<Promise<unknown>> = [];
  const append = (stream: string, data: readonly EventData[]) => {
    pending.push(store.append(stream, data, { expectedRevision: ExpectedRevision.NO_STREAM }));
    events += data.length;
  };
  const queueOne = () => {
    const runId = randomUUID();
    const decision = decider.decide(
      { type: 'RequestRun', data: { runId, agent: options.agent, input: { startup: queuedRunIds.length }, mode: 'queued', requestedBy: { kind: 'bus', id: 'bench' }, maxIterations: 3 }, metadata: { now: Date.now() } },
      decider.initialState(),
    );
    if (decision.kind !== 'accepted') throw new Error(`startup store: RequestRun was not accepted: ${JSON.stringify(decision)}`);
    const stream = runStreamName(runId);
    append(stream, toEventData(stream, 0n, decision.events, { correlationId: runId }));
    queuedRunIds.push(runId);
  };
  try {
    const spacing = options.events / options.queuedRuns;
    let lastLog = Date.now();
    while (events < options.events || queuedRunIds.length < options.queuedRuns) {
      // The queued runs fall evenly along the history (the first at its start).
      while (queuedRunIds.length < options.queuedRuns && events >= queuedRunIds.length * spacing) queueOne();
      if (events >= options.events) continue;
      const template = templates[finishedRuns % templates.length] as TemplateRun;
      const runId = randomUUID();
      for (const { stream, events: copy } of JSON.parse(template.json.replaceAll(template.runId, runId)) as StreamEvents[]) {
        append(stream, copy.map((e) => ({ id: randomUUID(), type: e.type, data: e.data, metadata: e.metadata })));
      }
      finishedRuns += 1;
      if (pending.length >= APPENDS_PER_WAVE) {
        await Promise.all(pending);
        pending = [];
        if (Date.now() - lastLog > 5_000) {
          lastLog = Date.now();
          options.log?.(`building: ${events} of ${options.events} events`);
        }
      }
    }
    await Promise.all(pending);
  } finally {
    await store.close();
  }
  return { path: options.path, events, finishedRuns, queuedRunIds, seconds: (Date.now() - started) / 1000 };
}
