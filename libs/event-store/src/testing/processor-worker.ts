/**
 * A child process for the processor runner's crash tests: follows the
 * embedded store at argv[2] with a {@link RecordingProcessor} named `crash`
 * into the processors' database at argv[3], in batches of argv[4] events,
 * printing `batch <n>` as each batch is applied, until killed. With a second
 * database at argv[5], a second processor, `crash-2`, is kept there and fed
 * by the same runner (one transaction per database per batch).
 */
import { SqliteEventStore } from '../sqlite/sqlite-event-store';
import { ProcessorDatabase } from '../processing/processor-database';
import { ProcessorRunner } from '../processing/processor-runner';
import { RecordingProcessor } from './recording-processor';

const [storePath, databasePath, batchSize, secondPath] = process.argv.slice(2);
const store = SqliteEventStore.open({ path: storePath as string });
const database = ProcessorDatabase.open({ path: databasePath as string });
const processor = new RecordingProcessor(database, 'crash');
let batches = 0;
processor.onApply = () => {
  batches++;
  // Printed before the commit: the parent may kill this process between the line and the commit, or after.
  process.stdout.write(`batch ${batches}\n`);
};
const runner = new ProcessorRunner({ store, source: 'runs', database, processors: [processor], batchSize: Number(batchSize) });
if (secondPath !== undefined) {
  const second = ProcessorDatabase.open({ path: secondPath });
  runner.add(new RecordingProcessor(second, 'crash-2'), second);
}
void runner.start();
