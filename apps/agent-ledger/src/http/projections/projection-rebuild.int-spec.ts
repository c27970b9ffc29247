import type { RunPage, RunStatusRow, StepRow } from '@agent-ledger/projections';
import { PROJECTION_NAMES, ProjectionRebuilder } from '@agent-ledger/projections';
import type { HttpTestApp } from '../testing/http-test-app';
import { httpTestKey, startHttpTestApp } from '../testing/http-test-app';
import type { RebuildAnswer } from '@agent-ledger/http';
import { runCli } from '../../cli/main';
import { cliRequester } from '../../cli/projections-rebuild.command';
import { scaled } from '../../../../../test/support/time-scale';

/** Polls `probe` until it gives something other than undefined, or fails after `timeoutMs`. */
async function eventually<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + scaled(timeoutMs);
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('POST and GET /projections/rebuild: a rebuild in the background of the service', () => {
  const ops = httpTestKey('ops', ['operate', 'runs:submit', 'runs:read']);
  const reader = httpTestKey('reader', ['runs:read']);
  let app: HttpTestApp;

  beforeAll(async () => {
    app = await startHttpTestApp({ keys: [ops, reader] });
  });
  afterAll(() => app.close());

  const rebuild = async () => ((await app.call('GET', '/projections/rebuild', { key: ops })).body as RebuildAnswer).rebuild;

  /** Starts an interactive run (executed during the request) and waits for the live read model to show it settled. */
  async function settledRun(agent: string): Promise<RunStatusRow> {
    const started = await app.call('POST', '/runs', { key: ops, body: { agent, input: 'go', mode: 'interactive' } });
    expect(started.status).toBe(200);
    const { runId } = started.body as { runId: string };
    return eventually(async () => {
      const row = await app.call('GET', `/runs/${runId}`, { key: ops });
      return row.status === 200 && (row.body as RunStatusRow).status === 'COMPLETED' ? (row.body as RunStatusRow) : undefined;
    }, `run ${runId} in the read model`);
  }

  /** Every run-status row, and every run's steps: what the rebuild must give back unchanged. */
  async function readModels(): Promise<{ runs: readonly RunStatusRow[]; steps: Record<string, readonly StepRow[]> }> {
    const page = (await app.call('GET', '/runs?limit=1000', { key: ops })).body as RunPage;
    const steps: Record<string, readonly StepRow[]> = {};
    for (const run of page.runs) steps[run.runId] = ((await app.call('GET', `/runs/${run.runId}/steps`, { key: ops })).body as { steps: StepRow[] }).steps;
    return { runs: page.runs, steps };
  }

  it('is idle before any rebuild, and refuses an unknown projection, an unknown field, and a key without operate', async () => {
    expect((await app.call('GET', '/projections/rebuild', { key: ops })).body).toEqual({
      rebuild: { state: 'idle', projections: null, requestedBy: null, startedAt: null, finishedAt: null, progress: null, result: null, error: null },
      history: [],
    });
    const unknown = await app.call('POST', '/projections/rebuild', { key: ops, body: { projection: 'runsStatus' } });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ code: 'INVALID_FIELD', field: 'projection', rule: 'isIn' });
    const extra = await app.call('POST', '/projections/rebuild', { key: ops, body: { projection: 'steps', now: true } });
    expect(extra.status).toBe(400);
    expect(extra.body).toMatchObject({ code: 'INVALID_FIELD', field: 'now', rule: 'unknownField' });
    const nulled = await app.call('POST', '/projections/rebuild', { key: ops, body: { projection: null } });
    expect(nulled.status).toBe(400);
    expect(nulled.body).toMatchObject({ field: 'projection' });
    for (const method of ['POST', 'GET']) {
      const refused = await app.call(method, '/projections/rebuild', { key: reader });
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({ code: 'SCOPE_MISSING', requiredScopes: ['operate'] });
    }
    expect(await rebuild()).toMatchObject({ state: 'idle' });
  });

  it('202 running -> progress -> succeeded; 409 meanwhile; the live tables answer and follow throughout; identical rows after the swap, and live updates after it', async () => {
    for (const agent of ['clock', 'writer', 'clock', 'writer']) await settledRun(agent);

    // The real rebuild, held after its first progress record until the test lets it go on.
    const rebuilder = app.app.get(ProjectionRebuilder);
    const real = rebuilder.rebuildWithProgress.bind(rebuilder);
    let release!: () => void;
    let expected: Awaited<ReturnType<typeof readModels>>;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const held = jest.spyOn(rebuilder, 'rebuildWithProgress').mockImplementation(async function* (options) {
      const inner = real(options);
      const first = await inner.next();
      if (first.done === true) return first.value;
      yield first.value;
      await gate;
      return yield* inner;
    });

    try {
      const before = Date.now();
      const started = await app.call('POST', '/projections/rebuild', { key: ops });
      expect(started.status).toBe(202);
      expect((started.body as RebuildAnswer).rebuild).toMatchObject({ state: 'running', projections: [...PROJECTION_NAMES], requestedBy: 'key:ops', finishedAt: null, result: null, error: null });
      expect((started.body as RebuildAnswer).rebuild.startedAt).toBeGreaterThanOrEqual(before);

      const second = await app.call('POST', '/projections/rebuild', { key: ops, body: { projection: 'steps' } });
      expect(second.status).toBe(409);
      expect(second.body).toMatchObject({ code: 'REBUILD_IN_PROGRESS' });

      const running = await eventually(async () => {
        const state = await rebuild();
        return state.progress !== null ? state : undefined;
      }, 'the first progress record');
      expect(running).toMatchObject({ state: 'running', progress: { phase: 'started', source: null, eventsDone: 0 } });

      // While the rebuild runs, the live runners keep feeding the live tables.
      const during = await settledRun('writer');
      expected = await readModels();
      expect(expected.runs.map((r) => r.runId)).toContain(during.runId);
      expect(expected.runs).toHaveLength(5);
    } finally {
      release();
      held.mockRestore();
    }

    const done = await eventually(async () => {
      const state = await rebuild();
      return state.state === 'running' ? undefined : state;
    }, 'the rebuild to end');
    expect(done).toMatchObject({ state: 'succeeded', requestedBy: 'key:ops', error: null, progress: { phase: 'swapped', fractionDone: 1 }, result: { projections: [...PROJECTION_NAMES] } });
    expect(done.result?.eventsDone).toBeGreaterThan(0);
    expect(done.result?.eventsApplied).toBeGreaterThanOrEqual(done.result?.eventsDone ?? Infinity);
    expect(done.finishedAt).toBeGreaterThanOrEqual(done.startedAt ?? Infinity);

    // The swapped-in tables hold the same rows (the run made during the rebuild included).
    expect(await readModels()).toEqual(expected);

    // The live runners follow the new tables: a run after the swap shows up.
    const after = await settledRun('clock');
    expect(((await app.call('GET', '/runs?limit=1000', { key: ops })).body as RunPage).runs.map((r) => r.runId)).toEqual([after.runId, ...expected.runs.map((r) => r.runId)]);
    const status = (await app.call('GET', '/projections', { key: ops })).body as { projections: { caughtUp: boolean | null; rebuilding: boolean }[] };
    expect(status.projections.every((p) => p.rebuilding === false)).toBe(true);

    // Another rebuild, of one projection, may follow.
    const one = await app.call('POST', '/projections/rebuild', { key: ops, body: { projection: 'runStatus' } });
    expect(one.status).toBe(202);
    expect((one.body as RebuildAnswer).rebuild).toMatchObject({ state: 'running', projections: ['runStatus'], progress: null, result: null });
    const second = await eventually(async () => {
      const state = await rebuild();
      return state.state === 'running' ? undefined : state;
    }, 'the second rebuild to end');
    expect(second).toMatchObject({ state: 'succeeded', result: { projections: ['runStatus'] } });
    expect((await readModels()).runs).toHaveLength(6);
  }, scaled(60_000));

  it("lists the rebuilds swapped into the read models' file, newest first, whoever ran them: the CLI's (cli:<user>@<host>) beside this service's (key:ops)", async () => {
    const lines: string[] = [];
    const errors: string[] = [];
    const output = { out: (l: string) => lines.push(l), err: (l: string) => errors.push(l), isTTY: false };
    const before = Date.now();
    // The CLI, on the service's files while it runs (another process in real use: it shares nothing with the service but the files).
    expect(await runCli(['projections', 'rebuild', 'steps'], output, { AGENT_LEDGER_DATA_DIR: app.config.dataDir, EVENTSTORE_CONNECTION_STRING: '' })).toBe(0);
    expect(errors).toEqual([]);
    const answer = (await app.call('GET', '/projections/rebuild', { key: ops })).body as RebuildAnswer;
    // This process's own rebuild state is unchanged (the CLI's ran elsewhere); the file's history has the CLI's first.
    expect(answer.rebuild).toMatchObject({ state: 'succeeded', projections: ['runStatus'], requestedBy: 'key:ops' });
    expect(answer.history[0]).toEqual({ projections: ['steps'], requestedBy: cliRequester(), startedAt: expect.any(Number), finishedAt: expect.any(Number), eventsDone: expect.any(Number), eventsApplied: expect.any(Number), elapsedMs: expect.any(Number) });
    expect(answer.history[0]?.startedAt).toBeGreaterThanOrEqual(before);
    expect(answer.history[0]?.finishedAt).toBeGreaterThanOrEqual(answer.history[0]?.startedAt ?? Infinity);
    expect(answer.history[0]?.eventsDone).toBeGreaterThan(0);
    expect(cliRequester()).toMatch(/^cli:[^@\s]+@\S+$/);
    expect(answer.history.slice(1)).toEqual([
      expect.objectContaining({ projections: ['runStatus'], requestedBy: 'key:ops' }),
      expect.objectContaining({ projections: [...PROJECTION_NAMES], requestedBy: 'key:ops' }),
    ]);
  });
});
