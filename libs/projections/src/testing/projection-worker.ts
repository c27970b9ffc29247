/**
 * A projection runner in a process of its own, for the crash test. Run with
 * `node -r ts-node/register/transpile-only -r tsconfig-paths/register projection-worker.ts <events.sqlite> <read-models.sqlite> <batchSize>`.
 * Prints `ready`, then follows the store until it is killed.
 */
import { SqliteEventStore } from '@agent-ledger/event-store';
import { ProjectionRunner } from '../runner/projection-runner';
import { ProjectionStore } from '../store/projection-store';

const [eventsPath, readModelPath, batchSize] = process.argv.slice(2);
if (eventsPath === undefined || readModelPath === undefined) throw new Error('usage: projection-worker <events.sqlite> <read-models.sqlite> [batchSize]');
const source = { name: 'runs', store: SqliteEventStore.open({ path: eventsPath }) };
const store = ProjectionStore.open({ path: readModelPath });
const runner = new ProjectionRunner(store, source, { batchSize: Number(batchSize ?? 256) });
void runner.start().then(() => process.stdout.write('ready\n'));
