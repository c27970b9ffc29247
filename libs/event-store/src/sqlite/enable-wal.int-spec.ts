import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import Database from 'better-sqlite3';
import { ProcessorDatabase } from '../processing/processor-database';
import { enableWal } from './enable-wal';
import { SqliteEventStore } from './sqlite-event-store';

/**
 * Another process holds a write lock on a file still in rollback-journal mode:
 * SQLite then answers a switch to WAL with SQLITE_BUSY at once, without waiting
 * for the connection's busy timeout (the race a service and its workers hit
 * when they start together and create a shared file).
 */
describe('enableWal while another process holds the file', () => {
  let dir: string;
  let path: string;
  const holders: ChildProcess[] = [];

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'agent-ledger-enable-wal-'));
    path = join(dir, 'shared.sqlite');
    const db = new Database(path);
    db.exec('CREATE TABLE t (x)');
    db.close();
  });

  afterEach(async () => {
    for (const holder of holders.splice(0)) {
      if (holder.exitCode === null && holder.signalCode === null) {
        holder.kill('SIGKILL');
        await once(holder, 'exit');
      }
    }
    rmSync(dir, { recursive: true, force: true });
  });

  /** A process that takes the file's RESERVED lock and releases it after `releaseAfterMs` (never when null). */
  const holdWriteLock = async (releaseAfterMs: number | null): Promise<void> => {
    const script = `
      const Database = require(${JSON.stringify(require.resolve('better-sqlite3'))});
      const db = new Database(${JSON.stringify(path)});
      db.exec('BEGIN IMMEDIATE; INSERT INTO t VALUES (1)');
      process.stdout.write('held\\n');
      const release = ${JSON.stringify(releaseAfterMs)};
      if (release === null) setInterval(() => {}, 1 << 30);
      else setTimeout(() => { db.exec('COMMIT'); db.close(); }, release);
    `;
    const holder = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    holders.push(holder);
    const [chunk] = (await once(holder.stdout!, 'data')) as [Buffer];
    expect(chunk.toString()).toBe('held\n');
  };

  const journalModeOf = (file: string): string => {
    const db = new Database(file, { readonly: true });
    try {
      return String(db.pragma('journal_mode', { simple: true }));
    } finally {
      db.close();
    }
  };

  it('waits until the lock is released, then switches the file to WAL', async () => {
    await holdWriteLock(300);
    const db = new Database(path, { timeout: 30_000 });
    try {
      enableWal(db, 30_000);
    } finally {
      db.close();
    }
    expect(journalModeOf(path)).toBe('wal');
  });

  it('gives up with SQLITE_BUSY once its timeout has passed', async () => {
    await holdWriteLock(null);
    const db = new Database(path, { timeout: 100 });
    try {
      expect(() => enableWal(db, 100)).toThrow(expect.objectContaining({ code: 'SQLITE_BUSY' }));
    } finally {
      db.close();
    }
    expect(journalModeOf(path)).toBe('delete');
  });

  it('lets a processor database and an embedded store open a file another process is creating', async () => {
    await holdWriteLock(300);
    const processors = ProcessorDatabase.open({ path, busyTimeoutMs: 30_000 });
    processors.close();
    expect(journalModeOf(path)).toBe('wal');

    const storePath = join(dir, 'store.sqlite');
    const seed = new Database(storePath);
    seed.exec('CREATE TABLE t (x)');
    seed.close();
    path = storePath;
    await holdWriteLock(300);
    const store = SqliteEventStore.open({ path: storePath, busyTimeoutMs: 30_000 });
    await store.close();
    expect(journalModeOf(storePath)).toBe('wal');
  });
});
