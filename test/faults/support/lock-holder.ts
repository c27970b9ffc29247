/**
 * A second process that takes a SQLite file's write lock and holds it, as an
 * operator's shell, a backup tool or another service would. Run with
 * `node -r ts-node/register/transpile-only lock-holder.ts <path>`; it imports
 * nothing of the product, only the driver.
 *
 * It prints `ready <pid>` once the file is open, then obeys lines on stdin:
 * - `lock`: `BEGIN EXCLUSIVE` (waits up to 5 s for a writer of the runtime to
 *   finish its transaction), then prints `locked`. In WAL mode this is the
 *   single writer's lock: every other connection's write waits for it (and
 *   fails after its busy timeout), readers go on.
 * - `release`: `ROLLBACK` (nothing was written under the lock), prints `released`.
 * - `exit`: closes the file and exits 0.
 */
import Database from 'better-sqlite3';
import { createInterface } from 'node:readline';

const path = process.argv[2];
if (path === undefined) {
  process.stderr.write('usage: lock-holder <sqlite file>\n');
  process.exit(2);
}

const db = new Database(path, { timeout: 5_000 });
const say = (line: string): void => void process.stdout.write(`${line}\n`);
say(`ready ${process.pid}`);

createInterface({ input: process.stdin }).on('line', (line) => {
  try {
    switch (line.trim()) {
      case 'lock':
        db.exec('BEGIN EXCLUSIVE');
        say('locked');
        return;
      case 'release':
        if (db.inTransaction) db.exec('ROLLBACK');
        say('released');
        return;
      case 'exit':
        if (db.inTransaction) db.exec('ROLLBACK');
        db.close();
        process.exit(0);
        return;
      default:
        say(`unknown ${line}`);
    }
  } catch (error) {
    say(`error ${error instanceof Error ? error.message : String(error)}`);
  }
});
