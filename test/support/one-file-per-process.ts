/**
 * Jest `setupFiles` of every tier: fails a test file that runs in a process
 * where another test file already ran.
 *
 * Why: jest-circus makes one `AsyncLocalStorage` per test file and never
 * disables it, and Node visits every live `AsyncLocalStorage` each time a
 * promise is created. Files sharing one process therefore get slower the later
 * they run, whatever they test (the 60th trivial file of a repro: 10x the
 * first). `jest.config.ts` gives each file a fresh worker process
 * (`workerIdleMemoryLimit: 0`); this guard makes any change that undoes it
 * (a `runInBand`, a memory limit instead of 0, `--detectOpenHandles`) fail
 * loudly at the second file instead of slowing the suite down silently.
 *
 * The count lives on `AsyncLocalStorage` itself: Jest gives every test file a
 * fresh module registry and global object, but Node's core modules (and their
 * classes) are the worker process's own, shared by every file it runs.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** The property of Node's `AsyncLocalStorage` class that counts the test files this process ran. */
export const FILES_IN_PROCESS = Symbol.for('agent-ledger.test.filesInProcess');

/** The guard's message, for the second and later file in one process. */
export function sharedProcessMessage(files: number): string {
  return (
    `Process ${process.pid} has already run ${files - 1} other test file(s): every test file must run in a process of its own ` +
    '(jest.config.ts: workerIdleMemoryLimit 0). Jest leaves one AsyncLocalStorage alive per file and Node visits each ' +
    'on every promise, so files sharing a process slow down the later they run. Run without --runInBand (-i) and ' +
    '--detectOpenHandles, or one file at a time.'
  );
}

const counter = AsyncLocalStorage as unknown as Record<symbol, number | undefined>;
const files = (counter[FILES_IN_PROCESS] ?? 0) + 1;
counter[FILES_IN_PROCESS] = files;
if (files > 1) throw new Error(sharedProcessMessage(files));
