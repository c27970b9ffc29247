/**
 * A second process for the embedded store's multi-process tests. Run with
 * `node -r ts-node/register/transpile-only sqlite-worker.ts <command> <args...>`.
 * Relative imports only (no path aliases), so it needs no extra loader.
 *
 * Commands (each prints `ready` once the store is open, then line-based results):
 * - `increment <path> <stream> <count>`: `count` read-decide-append increments
 *   (data `{ n: events read so far }`), retrying on conflict; prints `done <conflicts>`.
 * - `append-once <path> <stream>`: appends one event with `any`; prints `appended <revision>`.
 * - `append-timed <path> <stream> <count> <gapMs>`: appends `count` events, `gapMs` apart,
 *   each with `data.sentAt = Date.now()`; prints `done`.
 * - `append-acked <path> <stream>`: appends one event at a time forever with the exact
 *   expected revision; prints `acked <revision> <id>` after each acknowledgement.
 */
import { randomUUID } from 'node:crypto';
import { WrongExpectedRevisionError } from '../port/errors/wrong-expected-revision.error';
import { ExpectedRevision } from '../port/expected-revision';
import { SqliteEventStore } from '../sqlite/sqlite-event-store';

const [command, path, stream, ...rest] = process.argv.slice(2);

async function main(): Promise<void> {
  if (!command || !path || !stream) throw new Error('usage: sqlite-worker <command> <path> <stream> [...]');
  const store = SqliteEventStore.open({ path });
  const say = (line: string): void => void process.stdout.write(`${line}\n`);
  say('ready');
  switch (command) {
    case 'increment': {
      const count = Number(rest[0]);
      let conflicts = 0;
      for (let done = 0; done < count; ) {
        const { currentRevision, events } = await store.readStream(stream);
        try {
          await store.append(stream, [{ id: randomUUID(), type: 'Incremented', data: { n: events.length, pid: process.pid } }], {
            expectedRevision: currentRevision,
          });
          done++;
        } catch (error) {
          if (!(error instanceof WrongExpectedRevisionError)) throw error;
          conflicts++;
        }
      }
      say(`done ${conflicts}`);
      break;
    }
    case 'append-once': {
      const result = await store.append(stream, [{ id: randomUUID(), type: 'FromOtherProcess', data: {} }], { expectedRevision: ExpectedRevision.ANY });
      say(`appended ${result.nextExpectedRevision}`);
      break;
    }
    case 'append-timed': {
      const count = Number(rest[0]);
      const gapMs = Number(rest[1]);
      for (let i = 0; i < count; i++) {
        await store.append(stream, [{ id: randomUUID(), type: 'Timed', data: { i, sentAt: Date.now() } }], { expectedRevision: ExpectedRevision.ANY });
        await new Promise((resolve) => setTimeout(resolve, gapMs));
      }
      say('done');
      break;
    }
    case 'append-acked': {
      let expected: bigint | typeof ExpectedRevision.NO_STREAM = ExpectedRevision.NO_STREAM;
      for (;;) {
        const id = randomUUID();
        const result = await store.append(stream, [{ id, type: 'Acked', data: { pad: 'x'.repeat(200) } }], { expectedRevision: expected });
        expected = result.nextExpectedRevision;
        say(`acked ${result.nextExpectedRevision} ${id}`);
      }
    }
    default:
      throw new Error(`unknown command ${command}`);
  }
  await store.close();
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
