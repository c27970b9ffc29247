import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SqliteEventStore } from '@agent-ledger/event-store';
import { ProjectionStore } from '../store/projection-store';
import { appendSyntheticHistory } from '../testing/synthetic-history';
import { ProjectionRunner } from './projection-runner';
import { scaled } from '../../../../test/support/time-scale';

jest.setTimeout(scaled(60_000));

const ROOT = join(__dirname, '..', '..', '..', '..');

/** Reads the runStatus checkpoint's events_applied from another connection (0 before the first batch). */
function appliedSoFar(path: string): number {
  try {
    const db = new Database(path, { readonly: true, fileMustExist: true });
    try {
      const row = db.prepare(`SELECT events_applied FROM projection_checkpoints WHERE name = 'runStatus@runs'`).get() as { events_applied: number } | undefined;
      return row?.events_applied ?? 0;
    } finally {
      db.close();
    }
  } catch {
    return 0;
  }
}

describe('a runner killed mid-way (SIGKILL of a real process)', () => {
  let dir: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'agent-ledger-projection-crash-'));
  });

  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('resumes from its checkpoint and ends with exactly the rows and counts of an uninterrupted run', async () => {
    const eventsPath = join(dir, 'events.sqlite');
    const events = SqliteEventStore.open({ path: eventsPath });
    const total = await appendSyntheticHistory(events, events, 0, 3000);
    const crashedPath = join(dir, 'crashed.sqlite');

    const child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', '-r', 'tsconfig-paths/register', join(__dirname, '..', 'testing', 'projection-worker.ts'), eventsPath, crashedPath, '97'], {
      cwd: ROOT,
      env: { ...process.env, TS_NODE_PROJECT: join(ROOT, 'tsconfig.json') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<NodeJS.Signals | number | null>((resolve) => child.on('exit', (code, signal) => resolve(signal ?? code)));
    // Kill it while it is busy: after some batches, before the end.
    const deadline = Date.now() + scaled(30_000);
    let applied = 0;
    while ((applied = appliedSoFar(crashedPath)) < total / 4) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`The worker did not progress (applied ${applied}): ${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    const atKill = appliedSoFar(crashedPath);
    expect(atKill).toBeGreaterThan(0);
    expect(atKill).toBeLessThan(total);

    const source = { name: 'runs', store: events };
    const crashed = ProjectionStore.open({ path: crashedPath });
    const clean = ProjectionStore.open({ path: join(dir, 'clean.sqlite') });
    try {
      await new ProjectionRunner(crashed, source, { batchSize: 97 }).catchUp();
      await new ProjectionRunner(clean, source, { batchSize: 500 }).catchUp();
      expect(crashed.dumpTables()).toEqual(clean.dumpTables());
      // Counted once each: an event applied twice would be skipped by the revision guard and counted short.
      const counts = (s: ProjectionStore) => s.checkpoints().map(({ projection, position, eventsApplied }) => ({ projection, position, eventsApplied }));
      expect(counts(crashed)).toEqual(counts(clean));
      expect(crashed.checkpoint('runStatus', 'runs')?.eventsApplied).toBe(total);
    } finally {
      crashed.close();
      clean.close();
      await events.close();
    }
  });
});
