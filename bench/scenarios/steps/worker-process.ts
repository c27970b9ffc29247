/**
 * The second process of the two-process variant: the product's workers only
 * (no read models, no saga), on the same store file, driven by the benchmark
 * over IPC. It stays up across configurations: `start` opens a host, `stop`
 * closes it and answers with its store's transaction count. The same file
 * runs as a worker thread of the benchmark's process (the `thread` variant),
 * driven over its `parentPort`.
 */
import { parentPort } from 'node:worker_threads';
import type { BenchHost, BenchHostOptions } from './bench-host';
import { benchAgent, startBenchHost } from './bench-host';
import type { ToolEffect } from '@agent-ledger/domain';

/** Messages from the benchmark. */
export type WorkerProcessCommand =
  | { readonly type: 'start'; readonly options: Omit<BenchHostOptions, 'agents' | 'projectionsAndSaga'>; readonly effect: ToolEffect; readonly steps: number }
  | { readonly type: 'stop' };

/** Messages to the benchmark. */
export type WorkerProcessReply = { readonly type: 'started' } | { readonly type: 'stopped'; readonly transactions: number } | { readonly type: 'error'; readonly message: string };

let host: BenchHost | null = null;
const reply = (message: WorkerProcessReply) => (parentPort === null ? process.send?.(message) : parentPort.postMessage(message));

const onCommand = (command: WorkerProcessCommand) => {
  void (async () => {
    try {
      if (command.type === 'start') {
        host = await startBenchHost({ ...command.options, agents: [benchAgent(command.effect, command.steps)], projectionsAndSaga: false });
        reply({ type: 'started' });
      } else {
        const transactions = host?.store.stats().transactions ?? 0;
        await host?.close();
        host = null;
        reply({ type: 'stopped', transactions });
      }
    } catch (error) {
      reply({ type: 'error', message: error instanceof Error ? (error.stack ?? error.message) : String(error) });
    }
  })();
};
if (parentPort === null) {
  process.on('message', onCommand);
  process.on('disconnect', () => process.exit(0));
} else {
  parentPort.on('message', onCommand);
}
