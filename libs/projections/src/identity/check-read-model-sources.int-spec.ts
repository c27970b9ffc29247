import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Test } from '@nestjs/testing';
import { currentSchemaVersion } from '@agent-ledger/domain';
import type { EventStore } from '@agent-ledger/event-store';
import { EventStoreDbEventStore, ExpectedRevision, SqliteEventStore } from '@agent-ledger/event-store';
import type { EsdbTestServer } from '../../../../test/support/esdb-server';
import { startEsdbTestServer } from '../../../../test/support/esdb-server';
import { ReadModelStoreMismatchError } from '../errors/read-model-store-mismatch.error';
import { InvalidProjectionOptionError } from '../errors/invalid-projection-option.error';
import { ProjectionsModule } from '../nest/projections.module';
import { ProjectionQueries } from '../queries/projection-queries';
import { ProjectionRebuilder } from '../rebuild/projection-rebuilder';
import { ProjectionRunner } from '../runner/projection-runner';
import type { ProjectionSource } from '../runner/projection-source';
import { ProjectionStore } from '../store/projection-store';
import { runEvents } from '../testing/run-event-fixtures';
import { checkReadModelSources, ensureReadModelSources } from './check-read-model-sources';

/** Appends a requested and claimed run to `store`; returns its id. */
async function appendRun(store: EventStore): Promise<string> {
  const runId = randomUUID();
  const run = runEvents(runId);
  const events = [run.requested(), run.claimed()].map((e) => ({ id: randomUUID(), type: e.type, data: e.data as unknown as Record<string, unknown>, metadata: { schemaVersion: currentSchemaVersion(e.type) } }));
  await store.append(`run-${runId}`, events, { expectedRevision: ExpectedRevision.NO_STREAM });
  return runId;
}

describe.each(['sqlite', 'eventstoredb'] as const)('read models know which store they follow (%s)', (kind) => {
  let dir: string;
  let storeA: EventStore;
  let storeB: EventStore;
  const servers: EsdbTestServer[] = [];
  /** Store A or B: an embedded file, or a database of its own (a protocol-level EventStoreDB server). */
  const openStore = async (name: string): Promise<EventStore> => {
    if (kind === 'sqlite') return SqliteEventStore.open({ path: join(dir, `${name}.sqlite`) });
    const server = await startEsdbTestServer();
    servers.push(server);
    return EventStoreDbEventStore.connect({ connectionString: server.connectionString });
  };
  let runsOfA: string[];
  let runsOfB: string[];
  const opened: ProjectionStore[] = [];

  const readModels = (file = 'read-models.sqlite'): ProjectionStore => {
    const store = ProjectionStore.open({ path: join(dir, file) });
    opened.push(store);
    return store;
  };
  const sourcesOf = (store: EventStore): ProjectionSource[] => [{ name: 'runs', store }];
  const project = async (models: ProjectionStore, store: EventStore): Promise<void> => {
    await new ProjectionRunner(models, { name: 'runs', store }).catchUp();
  };
  const runIds = (models: ProjectionStore): string[] =>
    new ProjectionQueries(models, [])
      .listRuns({ limit: 100 })
      .runs.map((r) => r.runId)
      .sort();
  /** The read models as a version before identities leaves them: no recorded source. */
  const forgetIdentities = (file = 'read-models.sqlite'): void => {
    const db = new Database(join(dir, file));
    db.exec('DELETE FROM projection_sources');
    db.close();
  };

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'agent-ledger-read-model-identity-'));
    storeA = await openStore('a');
    storeB = await openStore('b');
    runsOfA = [await appendRun(storeA), await appendRun(storeA)].sort();
    // B holds more events than A: on the embedded store, A's checkpoint position exists in B too, at another run's event.
    runsOfB = [await appendRun(storeB), await appendRun(storeB), await appendRun(storeB)].sort();
  });

  afterEach(async () => {
    for (const store of opened.splice(0)) store.close();
    await storeA.close();
    await storeB.close();
    await Promise.all(servers.splice(0).map((s) => s.stop()));
    rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  it('a new file records the store it is first given, and then finds it the same', async () => {
    const models = readModels();
    expect(await checkReadModelSources(models, sourcesOf(storeA))).toEqual([
      { source: 'runs', storeId: (await storeA.storeIdentity()).id, recordedStoreId: null, verdict: 'new' },
    ]);
    await project(models, storeA);
    expect(await checkReadModelSources(models, sourcesOf(storeA))).toEqual([
      { source: 'runs', storeId: (await storeA.storeIdentity()).id, recordedStoreId: (await storeA.storeIdentity()).id, verdict: 'same' },
    ]);
    expect(runIds(models)).toEqual(runsOfA);
  });

  it('given another store, it refuses (naming the file and both stores) and writes nothing', async () => {
    const models = readModels();
    await ensureReadModelSources(models, sourcesOf(storeA));
    await project(models, storeA);
    const checkpoints = models.checkpoints();

    const refused = await ensureReadModelSources(models, sourcesOf(storeB)).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ReadModelStoreMismatchError);
    const error = refused as ReadModelStoreMismatchError;
    const [a, b] = [(await storeA.storeIdentity()).id, (await storeB.storeIdentity()).id];
    expect(error.mismatches).toEqual([{ source: 'runs', recordedStoreId: a, currentStoreId: b }]);
    expect(error.message).toContain(models.path);
    expect(error.message).toContain(a);
    expect(error.message).toContain(b);
    expect(models.checkpoints()).toEqual(checkpoints);
    expect(models.sourceIdentities()).toEqual(new Map([['runs', a]]));
    expect(runIds(models)).toEqual(runsOfA);
  });

  it('with onMismatch rebuild, it rebuilds every projection from the new store: its runs only, its identity recorded, at its head', async () => {
    const models = readModels();
    await ensureReadModelSources(models, sourcesOf(storeA));
    await project(models, storeA);
    const logged: string[] = [];

    const result = await ensureReadModelSources(models, sourcesOf(storeB), { onMismatch: 'rebuild', log: (m) => logged.push(m) });
    expect(result.rebuilt?.eventsDone).toBe(6);
    expect(runIds(models)).toEqual(runsOfB);
    expect(models.sourceIdentities()).toEqual(new Map([['runs', (await storeB.storeIdentity()).id]]));
    let last: string | undefined;
    for await (const event of storeB.readAll()) last = event.position;
    expect(new Set(models.checkpoints().map((c) => c.position))).toEqual(new Set([last]));
    expect(logged.join('\n')).toMatch(/were made from another event store[\s\S]*rebuilding them[\s\S]*rebuilt from "runs"/);
    expect((await checkReadModelSources(models, sourcesOf(storeB)))[0]?.verdict).toBe('same');
  });

  it('a file of an older version (no identity) adopts the store whose events its checkpoints fall on, and no other', async () => {
    const models = readModels();
    await project(models, storeA);
    forgetIdentities();
    // B has an event at A's checkpoint position, but of a run these read models never applied.
    expect((await checkReadModelSources(models, sourcesOf(storeB)))[0]).toMatchObject({ verdict: 'mismatch', recordedStoreId: null });
    expect(models.sourceIdentities().size).toBe(0);
    await expect(ensureReadModelSources(models, sourcesOf(storeB))).rejects.toThrow(/recorded no identity and their checkpoints do not fit it/);

    const logged: string[] = [];
    const adopted = await ensureReadModelSources(models, sourcesOf(storeA), { log: (m) => logged.push(m) });
    expect(adopted.checks[0]).toMatchObject({ verdict: 'adopted', storeId: (await storeA.storeIdentity()).id });
    expect(models.sourceIdentities()).toEqual(new Map([['runs', (await storeA.storeIdentity()).id]]));
    expect(logged.join('\n')).toMatch(/recorded no store identity .*its checkpoints fit store/);
  });

  it('an older file whose checkpoint is past the store\'s end does not fit it', async () => {
    const models = readModels();
    await project(models, storeB);
    forgetIdentities();
    expect((await checkReadModelSources(models, sourcesOf(storeA)))[0]?.verdict).toBe('mismatch');
  });

  it('a rebuild of some projections cannot move the read models to another store; a rebuild of all does', async () => {
    const models = readModels();
    await ensureReadModelSources(models, sourcesOf(storeA));
    await project(models, storeA);
    const rebuilder = new ProjectionRebuilder(models, sourcesOf(storeB));
    await expect(rebuilder.rebuild({ projections: ['runStatus'] })).rejects.toThrow(/cannot move the read models to another store: rebuild every projection/);
    expect(runIds(models)).toEqual(runsOfA);
    expect(models.sourceIdentities()).toEqual(new Map([['runs', (await storeA.storeIdentity()).id]]));

    await rebuilder.rebuild();
    expect(runIds(models)).toEqual(runsOfB);
    expect(models.sourceIdentities()).toEqual(new Map([['runs', (await storeB.storeIdentity()).id]]));
    // A rebuild of some projections from the same store keeps the identity.
    await rebuilder.rebuild({ projections: ['runStatus'] });
    expect(models.sourceIdentities()).toEqual(new Map([['runs', (await storeB.storeIdentity()).id]]));
  });

  describe('ProjectionsModule', () => {
    const compile = (store: EventStore, onStoreMismatch?: 'refuse' | 'rebuild') =>
      Test.createTestingModule({
        imports: [ProjectionsModule.forRoot({ databasePath: join(dir, 'module.sqlite'), sources: sourcesOf(store), startRunners: false, onStoreMismatch })],
      }).compile();

    it('refuses to build on read models of another store, and rebuilds them when told to', async () => {
      const first = await compile(storeA);
      await new ProjectionRunner(first.get(ProjectionStore), { name: 'runs', store: storeA }).catchUp();
      await first.close();

      await expect(compile(storeB)).rejects.toBeInstanceOf(ReadModelStoreMismatchError);
      await expect(compile(storeB, 'refuse')).rejects.toThrow(join(dir, 'module.sqlite'));

      const rebuilt = await compile(storeB, 'rebuild');
      try {
        expect(runIds(rebuilt.get(ProjectionStore))).toEqual(runsOfB);
      } finally {
        await rebuilt.close();
      }
    });

    it('refuses an unknown onStoreMismatch, naming the option', () => {
      expect(() => ProjectionsModule.forRoot({ databasePath: join(dir, 'x.sqlite'), sources: sourcesOf(storeA), onStoreMismatch: 'ignore' as never })).toThrow(InvalidProjectionOptionError);
      expect(() => ProjectionsModule.forRoot({ databasePath: join(dir, 'x.sqlite'), sources: sourcesOf(storeA), onStoreMismatch: 'ignore' as never })).toThrow(/onStoreMismatch.*refuse, rebuild/);
    });
  });
});
