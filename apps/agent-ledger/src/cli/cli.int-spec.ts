import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { ProcessorDatabase, SqliteEventStore } from '@agent-ledger/event-store';
import { ProjectionStore } from '@agent-ledger/projections';
import { writeExecutedWithoutAudit } from '@agent-ledger/runtime/testing';
import { eventually, startRuntime } from '@agent-ledger/runtime/testing';
import type { CliOutput } from './cli-output';
import { runCli } from './main';

const AGENTS = [
  { name: 'putter', script: [{ toolCalls: [{ tool: 'test.put', arguments: { value: 'x' } }] }, { final: 'ok' }] },
  { name: 'appender', script: [{ toolCalls: [{ tool: 'test.append', arguments: { value: 'x' } }] }, { final: 'ok' }] },
];

function capture(): CliOutput & { lines: string[]; errors: string[] } {
  const lines: string[] = [];
  const errors: string[] = [];
  return { lines, errors, out: (l) => lines.push(l), err: (l) => errors.push(l), isTTY: false };
}

describe('agent-ledger CLI', () => {
  let dataDir: string;
  let env: NodeJS.ProcessEnv;

  beforeEach(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'agent-ledger-cli-'));
    // The service keeps runs in <data>/agent-ledger.sqlite; this one keeps audits in a file of their own.
    env = { AGENT_LEDGER_DATA_DIR: dataDir, AUDIT_STORE_PATH: join(dataDir, 'audit.sqlite') };
    const rt = await startRuntime({ store: 'sqlite', storeDir: dataDir, agents: AGENTS });
    try {
      await rt.runs.runInteractive({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'putter', input: 'go', runId: 'run-a' });
      await rt.runs.runInteractive({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'putter', input: 'go', runId: 'run-b' });
    } finally {
      await rt.close();
    }
  });

  afterEach(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** The identity recorded in a store file. */
  const identityOf = async (path: string): Promise<string> => {
    const store = SqliteEventStore.open({ path });
    try {
      return (await store.storeIdentity()).id;
    } finally {
      await store.close();
    }
  };

  it('audit verify: exit 0, which stores it read on its first line, then a summary when every chain is intact', async () => {
    const output = capture();
    expect(await runCli(['audit', 'verify'], output, env, { cwd: dataDir })).toBe(0);
    const [runs, audits] = [await identityOf(join(dataDir, 'agent-ledger.sqlite')), await identityOf(join(dataDir, 'audit.sqlite'))];
    expect(output.lines[0]).toBe(
      `Stores read: embedded SQLite ${join(dataDir, 'agent-ledger.sqlite')} (store ${runs}); audit store embedded SQLite ${join(dataDir, 'audit.sqlite')} (store ${audits}); ` +
        'settings from the environment and the defaults, no configuration file',
    );
    expect(output.lines[1]).toBe('Audit chains: 2 runs, 8 records, 0 broken');
    expect(output.errors).toEqual([]);
  });

  it('every store verb takes --config, reads the stores it names, and says so; --json carries the same in "stores"', async () => {
    const elsewhere = mkdtempSync(join(tmpdir(), 'agent-ledger-cli-elsewhere-'));
    try {
      const configFile = join(elsewhere, 'service.yaml');
      writeFileSync(configFile, `store:\n  dataDir: ${dataDir}\naudit:\n  storePath: ${join(dataDir, 'audit.sqlite')}\n`);
      const stores = {
        runStore: { kind: 'sqlite', location: join(dataDir, 'agent-ledger.sqlite'), storeId: await identityOf(join(dataDir, 'agent-ledger.sqlite')) },
        auditStore: { kind: 'sqlite', location: join(dataDir, 'audit.sqlite'), storeId: await identityOf(join(dataDir, 'audit.sqlite')) },
        configFile,
        unreadConfigFiles: [],
      };
      for (const verb of [['audit', 'review'], ['audit', 'verify']]) {
        const json = capture();
        expect(await runCli([...verb, '--json', '--config', 'service.yaml'], json, {}, { cwd: elsewhere })).toBe(0);
        expect((JSON.parse(json.lines.join('\n')) as { stores: unknown }).stores).toEqual(stores);
        const text = capture();
        expect(await runCli([...verb, '--config', configFile], text, {}, { cwd: elsewhere })).toBe(0);
        expect(text.lines[0]).toContain(`; settings from the configuration file ${configFile} and the environment`);
      }
      const rebuilt = capture();
      expect(await runCli(['projections', 'rebuild', 'runStatus', '--config', configFile], rebuilt, {}, { cwd: elsewhere })).toBe(0);
      expect(rebuilt.lines[0]).toBe(`Stores read: embedded SQLite ${stores.runStore.location} (store ${stores.runStore.storeId}); audit store embedded SQLite ${stores.auditStore.location} (store ${stores.auditStore.storeId}); settings from the configuration file ${configFile} and the environment`);
      expect(rebuilt.lines.at(-1)).toMatch(/^Rebuilt runStatus: \d+ events/);
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it("warns, naming --config, when the current folder holds a configuration file it was not given; with no store there, the refusal names it too", async () => {
    const project = mkdtempSync(join(tmpdir(), 'agent-ledger-cli-project-'));
    try {
      writeFileSync(join(project, 'agent-ledger.yaml'), `store:\n  dataDir: ${dataDir}\naudit:\n  storePath: ${join(dataDir, 'audit.sqlite')}\n`);
      // The environment names the stores: they are read, with the warning that the file here was not.
      const output = capture();
      expect(await runCli(['audit', 'verify', '--json'], output, env, { cwd: project })).toBe(0);
      expect((JSON.parse(output.lines.join('\n')) as { stores: { unreadConfigFiles: string[] } }).stores.unreadConfigFiles).toEqual([join(project, 'agent-ledger.yaml')]);
      expect(output.errors).toEqual([
        `agent-ledger audit verify: warning: ${join(project, 'agent-ledger.yaml')} was not read (no --config, AGENT_LEDGER_CONFIG unset): the stores above come from the environment and the defaults, and may not be the service's. ` +
          `To read the service's stores: agent-ledger audit verify --config ${join(project, 'agent-ledger.yaml')}`,
      ]);
      // Nothing names the stores: ./data of the project does not exist, refused naming the file and the flag.
      const refused = capture();
      expect(await runCli(['audit', 'review'], refused, {}, { cwd: project })).toBe(3);
      expect(refused.errors.join('\n')).toContain(`${join(project, 'agent-ledger.yaml')} was not read: give the service's with --config ${join(project, 'agent-ledger.yaml')}`);
      expect(existsSync(join(project, 'data'))).toBe(false);
      // Given, it is read, and no warning.
      const given = capture();
      expect(await runCli(['audit', 'review', '--config', 'agent-ledger.yaml'], given, {}, { cwd: project })).toBe(0);
      expect(given.errors).toEqual([]);
      expect(given.lines[0]).toContain(`Stores read: embedded SQLite ${join(dataDir, 'agent-ledger.sqlite')}`);
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  });

  it('audit verify --json: exit 1 and the broken record when an audit record was edited', async () => {
    const db = new Database(join(dataDir, 'audit.sqlite'));
    db.prepare("UPDATE events SET data = replace(data, '\"succeeded\"', '\"failed\"') WHERE stream_name = 'audit-run-b' AND revision = 2").run();
    db.close();
    const output = capture();
    expect(await runCli(['audit', 'verify', '--json'], output, env)).toBe(1);
    const report = JSON.parse(output.lines.join('\n')) as { brokenRuns: string[]; breaks: { problem: string }[] };
    expect(report.brokenRuns).toEqual(['run-b']);
    expect(report.breaks.map((b) => b.problem)).toEqual(['hashMismatch']);
  });

  it('exits 2 on an unknown command or option, and 3 on a bad configuration', async () => {
    expect(await runCli(['audit', 'frobnicate'], capture(), env)).toBe(2);
    expect(await runCli(['audit', 'verify', '--colour'], capture(), env)).toBe(2);
    const output = capture();
    expect(await runCli(['audit', 'verify'], output, { ...env, PORT: 'eighty' })).toBe(3);
    expect(output.errors.join('\n')).toContain('PORT must be an integer');
  });

  /** The identity of a store other than the service's. */
  const otherStoreId = async (): Promise<string> => {
    const otherDir = mkdtempSync(join(tmpdir(), 'agent-ledger-cli-other-'));
    const other = SqliteEventStore.open({ path: join(otherDir, 'runs.sqlite') });
    try {
      return (await other.storeIdentity()).id;
    } finally {
      await other.close();
      rmSync(otherDir, { recursive: true, force: true });
    }
  };

  it("worker: refuses a processors' database made from other stores (exit 3) before it starts, with its saga or without", async () => {
    const processors = ProcessorDatabase.open({ path: join(dataDir, 'processors.sqlite') });
    processors.recordSourceIdentity('runs', await otherStoreId(), 0);
    processors.close();
    const stopped = AbortSignal.abort('test');
    for (const args of [['worker'], ['worker', '--no-saga']]) {
      const output = capture();
      expect(await runCli(args, output, env, { stop: stopped })).toBe(3);
      expect(output.errors.join('\n')).toContain(
        `the processors' database ${join(dataDir, 'processors.sqlite')} (the queue and the audit-gap saga's state) was made from another event store than the run store ${join(dataDir, 'agent-ledger.sqlite')}`,
      );
      expect(output.lines.join('\n')).not.toContain('worker started');
    }
  });

  it('worker: warns at start about a variable that looks like a setting and is none, naming the setting it likely meant', async () => {
    const output = capture();
    expect(await runCli(['worker', '--no-saga'], output, { ...env, WORKER_CONCURENCY: '4' }, { stop: AbortSignal.abort('test') })).toBe(0);
    expect(output.errors).toContain('agent-ledger: warning: the environment variable WORKER_CONCURENCY is not a setting of agent-ledger and is ignored; did you mean WORKER_CONCURRENCY?');
  });

  it('worker: refuses an audit-gap saga ledger of an earlier version made from other stores (exit 3) before it starts; --no-saga does not look at it', async () => {
    const otherId = await otherStoreId();
    const legacy = new Database(join(dataDir, 'audit-gap-saga.sqlite'));
    legacy.exec(`
      CREATE TABLE saga_checkpoints (source TEXT PRIMARY KEY, position TEXT NOT NULL);
      CREATE TABLE saga_stores (role TEXT PRIMARY KEY, store_id TEXT NOT NULL, recorded_at INTEGER NOT NULL);
    `);
    legacy.prepare("INSERT INTO saga_stores VALUES ('runs', ?, 0), ('audit', ?, 0)").run(otherId, otherId);
    legacy.close();
    const stopped = AbortSignal.abort('test');
    const output = capture();
    expect(await runCli(['worker'], output, env, { stop: stopped })).toBe(3);
    expect(output.errors.join('\n')).toContain(`the audit-gap saga's ledger ${join(dataDir, 'audit-gap-saga.sqlite')} was made from another event store than the run store ${join(dataDir, 'agent-ledger.sqlite')}`);
    expect(output.lines.join('\n')).not.toContain('worker started');
    const noSaga = capture();
    expect(await runCli(['worker', '--no-saga'], noSaga, env, { stop: stopped })).toBe(0);
    expect(noSaga.lines.join('\n')).toContain('audit-gap saga off');
  });

  describe('audit review', () => {
    it('exits 0 with the totals when every write has its audit and every chain is intact', async () => {
      const output = capture();
      expect(await runCli(['audit', 'review', '--json'], output, env)).toBe(0);
      const report = JSON.parse(output.lines.join('\n')) as { findings: boolean; review: { totals: Record<string, number> }; chains: { runs: number } };
      expect(report.findings).toBe(false);
      expect(report.review.totals).toMatchObject({ writesExecuted: 2, writesAudited: 2, writesWithoutAudit: 0, gapsDetected: 0, runsFailedClosed: 0 });
      expect(report.chains.runs).toBe(2);
    });

    it('refuses read models made from another store (exit 3, naming the files and the fix), and rebuilds them when told to', async () => {
      expect(await runCli(['audit', 'review', '--json'], capture(), env)).toBe(0); // the read models now follow these stores
      const otherDir = mkdtempSync(join(tmpdir(), 'agent-ledger-cli-other-'));
      try {
        const other = { ...env, EVENT_STORE_PATH: join(otherDir, 'runs.sqlite'), AUDIT_STORE_PATH: join(otherDir, 'audit.sqlite') };
        // Other stores that exist (empty), as another service made them: the CLI refuses a store file that does not exist at all.
        for (const path of [other.EVENT_STORE_PATH, other.AUDIT_STORE_PATH]) await SqliteEventStore.open({ path }).close();
        const refused = capture();
        expect(await runCli(['audit', 'review'], refused, other)).toBe(3);
        const said = refused.errors.join('\n');
        expect(said).toContain(`the read models ${join(dataDir, 'read-models.sqlite')} were made from another event store than the run store ${join(otherDir, 'runs.sqlite')} (EVENT_STORE_PATH)`);
        expect(said).toContain(`the audit store ${join(otherDir, 'audit.sqlite')} (AUDIT_STORE_PATH)`);
        expect(said).toContain('`agent-ledger projections rebuild`');
        // It says which stores it looked at, and nothing else.
        expect(refused.lines).toEqual([expect.stringMatching(new RegExp(`^Stores read: embedded SQLite ${join(otherDir, 'runs.sqlite')} \\(store [0-9a-f-]{36}\\); audit store`))]);

        const rebuilt = capture();
        expect(await runCli(['audit', 'review', '--json'], rebuilt, { ...other, READ_MODELS_ON_STORE_MISMATCH: 'rebuild' })).toBe(0);
        expect(rebuilt.errors.join('\n')).toMatch(/rebuilding them/);
        const report = JSON.parse(rebuilt.lines.join('\n')) as { review: { totals: Record<string, number> } };
        expect(report.review.totals).toMatchObject({ writesExecuted: 0 }); // the other stores are empty: none of run-a's and run-b's writes
      } finally {
        rmSync(otherDir, { recursive: true, force: true });
      }
    });

    it('exits 1 on a write its run failed closed without audit, though the contract allows it (verify, the integrity question, exits 0)', async () => {
      const rt = await startRuntime({ store: 'sqlite', storeDir: dataDir, agents: AGENTS });
      try {
        const undo = rt.breakAuditStore();
        await rt.runs.runInteractive({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'appender', input: 'go', runId: 'run-closed' });
        undo();
      } finally {
        await rt.close();
      }
      const json = capture();
      expect(await runCli(['audit', 'review', '--json'], json, env)).toBe(1);
      const report = JSON.parse(json.lines.join('\n')) as { findings: boolean; verdict: { findings: boolean; writesWithoutAudit: { runId: string; allowedBy: string | null }[] } };
      expect(report).toMatchObject({ findings: true, verdict: { findings: false } });
      expect(report.verdict.writesWithoutAudit).toEqual([expect.objectContaining({ runId: 'run-closed', allowedBy: 'failedClosed' })]);
      expect(await runCli(['audit', 'verify'], capture(), env)).toBe(0);
    });

    it('exits 1 and lists a run failed closed, a gap found by the saga and a broken chain', async () => {
      const rt = await startRuntime({ store: 'sqlite', storeDir: dataDir, agents: AGENTS, execution: { auditGapSaga: { gracePeriodMs: 1000 } } });
      try {
        const undo = rt.breakAuditStore();
        await rt.runs.runInteractive({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'appender', input: 'go', runId: 'run-closed' });
        undo();
        const { stepId } = await writeExecutedWithoutAudit(rt, { agent: 'appender', runId: 'run-gap', tool: { name: 'test.append', effect: 'NON_IDEMPOTENT_WRITE', operationDeadlineSeconds: 60 } });
        // The saga waits for both audits that never came: the failed-closed write's and the crashed one's.
        await eventually(() => (rt.saga.pendingCount() === 2 ? true : undefined));
        rt.clock.advance(2000);
        expect((await rt.saga.checkDeadlines()).reported.sort()).toEqual(['run-closed/r0/t0', stepId].sort());
      } finally {
        await rt.close();
      }
      const db = new Database(join(dataDir, 'audit.sqlite'));
      db.prepare("UPDATE events SET data = replace(data, '\"succeeded\"', '\"failed\"') WHERE stream_name = 'audit-run-a' AND revision = 2").run();
      db.close();

      const output = capture();
      expect(await runCli(['audit', 'review'], output, env)).toBe(1);
      const text = output.lines.join('\n');
      expect(text).toMatch(/runs failed closed \(AUDIT_PERSISTENCE_FAILED\)\s+1/);
      expect(text).toMatch(/gaps detected\s+2/);
      expect(text).toMatch(/broken chains\s+1/);
      expect(text).toContain('Runs failed closed (1)');
      expect(text).toContain('run-closed');
      expect(text).toContain('Gaps detected (2)');
      expect(text).toContain('run-gap/r0/t0');
      expect(text).toMatch(/run-a\s+2\s+run-a\/r0\/t0\s+hashMismatch/);
      // From the stores: the failed-closed write and the crashed one are listed, as the contract allows them.
      expect(text).toMatch(/run-closed\s+run-closed\/r0\/t0\s+test\.append\s+NON_IDEMPOTENT_WRITE\s+AUDIT_PERSISTENCE_FAILED\s+failedClosed/);
      expect(text).toMatch(/run-gap\s+run-gap\/r0\/t0\s+test\.append\s+NON_IDEMPOTENT_WRITE\s+AUDIT_MISSING\s+failedClosed/);
      expect(text).toContain('2 without audit (0 that the contract does not allow)');
    });
  });

  describe('the verdict comes from the stores', () => {
    it('audit review: exit 1 naming the run and step when the tail of an audit stream was deleted after the read model was built', async () => {
      expect(await runCli(['audit', 'review'], capture(), env)).toBe(0);
      // run-a's write is its audit record #2 (after the start statement #0 and the model's #1, before the model's #3): delete it and what follows.
      const db = new Database(join(dataDir, 'audit.sqlite'));
      expect(db.prepare("DELETE FROM events WHERE stream_name = 'audit-run-a' AND revision >= 2").run().changes).toBe(2);
      db.close();

      const output = capture();
      expect(await runCli(['audit', 'review'], output, env)).toBe(1);
      const text = output.lines.join('\n');
      expect(text).toMatch(/Writes without audit in the store \(1\)/);
      expect(text).toMatch(/run-a\s+run-a\/r0\/t0\s+test\.put\s+IDEMPOTENT_WRITE\s+COMPLETED/);

      const json = capture();
      expect(await runCli(['audit', 'review', '--json'], json, env)).toBe(1);
      const report = JSON.parse(json.lines.join('\n')) as { findings: boolean; verdict: { findings: boolean; writesWithoutAudit: { runId: string; stepId: string }[] } };
      expect(report.findings).toBe(true);
      expect(report.verdict.findings).toBe(true);
      expect(report.verdict.writesWithoutAudit).toEqual([expect.objectContaining({ runId: 'run-a', stepId: 'run-a/r0/t0' })]);
    });

    it('audit verify: exit 1 and says so when the audit store holds none of the audits of the run store (AUDIT_STORE_PATH changed)', async () => {
      const output = capture();
      expect(await runCli(['audit', 'verify'], output, { ...env, AUDIT_STORE_PATH: join(dataDir, 'another-audit.sqlite') })).toBe(1);
      const text = output.lines.join('\n');
      expect(output.lines[1]).toBe('Audit chains: 0 runs, 0 records, 0 broken');
      expect(text).toContain('Finding: the run store holds 2 executed writes whose audit records are not in this audit store');
      expect(text).toContain('2 runs that executed writes have no audit stream in this audit store');
    });

    it('audit verify: exit 1 when the tail of an audit stream was deleted (the chain alone is intact)', async () => {
      const db = new Database(join(dataDir, 'audit.sqlite'));
      db.prepare("DELETE FROM events WHERE stream_name = 'audit-run-b' AND revision >= 2").run();
      db.close();
      const output = capture();
      expect(await runCli(['audit', 'verify'], output, env)).toBe(1);
      expect(output.lines[1]).toBe('Audit chains: 2 runs, 6 records, 0 broken');
      expect(output.lines.join('\n')).toMatch(/run-b\s+run-b\/r0\/t0\s+test\.put\s+IDEMPOTENT_WRITE\s+COMPLETED/);
    });
  });

  describe('projections rebuild', () => {
    it('rebuilds every read model into fresh tables, reports progress, and gives the same rows', async () => {
      expect(await runCli(['audit', 'review'], capture(), env)).toBe(0);
      const before = ProjectionStore.open({ path: join(dataDir, 'read-models.sqlite') });
      const live = before.dumpTables();
      before.close();

      const output = capture();
      expect(await runCli(['projections', 'rebuild'], output, env)).toBe(0);
      expect(output.lines.at(-1)).toMatch(/^Rebuilt runStatus, steps, auditReview, approvals: \d+ events \(\d+ applied\) in [\d.]+ s; swapped in$/);
      expect(output.lines.some((l) => / events\/s/.test(l))).toBe(true);

      const after = ProjectionStore.open({ path: join(dataDir, 'read-models.sqlite') });
      expect(after.dumpTables()).toEqual(live);
      after.close();
    });

    it('refuses an unknown projection name', async () => {
      const output = capture();
      expect(await runCli(['projections', 'rebuild', 'everything'], output, env)).toBe(2);
      expect(output.errors[0]).toContain('Unknown projection "everything"');
    });
  });
});
