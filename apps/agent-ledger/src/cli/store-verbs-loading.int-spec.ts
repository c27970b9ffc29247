/**
 * What a store verb loads (issue 26): only what it opens. On the embedded
 * store, `audit verify` loads the service's settings, the event store and the
 * audit's review: not Nest, the runtime's engine, the read models or the HTTP
 * API; `audit review` and `projections rebuild` also open the read models,
 * and still load neither the HTTP API nor another store's client (gRPC for
 * EventStoreDB, `pg`). Each case loads the CLI afresh and records which of the
 * modules below it asked for. The bench measures the time
 * (`npm run bench -- --only cli`, docs/benchmarks.md).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteEventStore } from '@agent-ledger/event-store';
import { forgetWatched, modulesLoadedBy } from './testing/modules-loaded';

/** The parts a store verb on the embedded store may do without. */
const WATCHED = [
  '@agent-ledger/runtime',
  '@agent-ledger/projections',
  '@agent-ledger/module',
  '@agent-ledger/http',
  '@nestjs/common',
  '@nestjs/core',
  '@nestjs/platform-express',
  '@nestjs/swagger',
  '@eventstore/db-client',
  'pg',
] as const;

/** What every store verb on the embedded store does without. */
const NEVER = ['@agent-ledger/http', '@nestjs/platform-express', '@nestjs/swagger', '@eventstore/db-client', 'pg'];

describe('what a store verb loads, on the embedded store', () => {
  let dataDir: string;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'store-verb-loading-'));
    env = { AGENT_LEDGER_DATA_DIR: dataDir };
    await SqliteEventStore.open({ path: join(dataDir, 'agent-ledger.sqlite') }).close();
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
  afterEach(() => forgetWatched(WATCHED));

  it('audit verify loads the settings, the store and the review: no Nest, no engine, no read models, no HTTP API, no other store', async () => {
    const { code, loaded, output } = await modulesLoadedBy(WATCHED, ['audit', 'verify'], env, { cwd: dataDir });
    expect(output.errors).toEqual([]);
    expect(output.lines[0]).toMatch(/^Stores read: embedded SQLite /);
    expect(output.lines.join('\n')).toContain('0 executed');
    expect(code).toBe(0);
    expect(loaded).toEqual([]);
  });

  it.each([[['audit', 'review']], [['projections', 'rebuild']]])('%j opens the read models too, and loads neither the HTTP API nor another store', async (argv) => {
    const { code, loaded, output } = await modulesLoadedBy(WATCHED, argv, env, { cwd: dataDir });
    expect(output.errors).toEqual([]);
    expect(code).toBe(0);
    expect(loaded).toContain('@agent-ledger/projections');
    expect(loaded.filter((name) => NEVER.includes(name))).toEqual([]);
  });
});
