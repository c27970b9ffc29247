/**
 * Jest `setupFiles` of every tier: when a test file starts, disables the
 * `AsyncLocalStorage`s that earlier files of the same worker process used.
 *
 * Why: jest-circus makes one `AsyncLocalStorage` per test file and never
 * disables it, and Node visits every enabled `AsyncLocalStorage` each time a
 * promise is created. Files sharing a worker process therefore got slower the
 * later they ran, whatever they tested (a repro's 60th trivial file: 10x the
 * first; the simulation as the 183rd file of a run: 1,480 s instead of 90).
 * A fresh process for every file cured it, at 1.3 s of CPU a file (Jest,
 * ts-jest and TypeScript loaded again each time: 247 s of CPU for the 140
 * unit files, 67 s in shared workers). This keeps the workers and removes
 * the cause instead: an earlier file's storages are never used again (its
 * module registry is gone), so disabling them changes nothing but the cost.
 *
 * How: Node's core modules are the worker process's own, shared by every file
 * it runs; `AsyncLocalStorage.prototype.run` and `enterWith` are wrapped once
 * per process to note each storage with the file that first used it, and each
 * file's setup disables those of earlier files. The storage of the file that
 * is starting is not used before its tests run, after this setup.
 * `test/workspace/promise-cost-per-file.int-spec.ts` checks that a promise
 * costs the same in the 30th file of a process as in the first, and that it
 * does not without this file.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** The property of Node's `AsyncLocalStorage` class that holds the process's {@link StorageRegistry}. */
export const STORAGE_REGISTRY = Symbol.for('agent-ledger.test.storageRegistry');

/** The test files this process ran, and the storages in use with the file that first used each. */
interface StorageRegistry {
  files: number;
  readonly firstUsedIn: Map<AsyncLocalStorage<unknown>, number>;
}

type Entering = (this: AsyncLocalStorage<unknown>, ...args: never[]) => unknown;

const holder = AsyncLocalStorage as unknown as Record<symbol, StorageRegistry | undefined>;

function registry(): StorageRegistry {
  const existing = holder[STORAGE_REGISTRY];
  if (existing !== undefined) return existing;
  const created: StorageRegistry = { files: 0, firstUsedIn: new Map() };
  holder[STORAGE_REGISTRY] = created;
  const prototype = AsyncLocalStorage.prototype as unknown as Record<'run' | 'enterWith', Entering>;
  for (const method of ['run', 'enterWith'] as const) {
    const original = prototype[method];
    prototype[method] = function noted(this: AsyncLocalStorage<unknown>, ...args: never[]): unknown {
      if (!created.firstUsedIn.has(this)) created.firstUsedIn.set(this, created.files);
      return original.apply(this, args);
    };
  }
  return created;
}

const storages = registry();
storages.files += 1;
for (const [storage, file] of storages.firstUsedIn) {
  if (file >= storages.files) continue;
  storage.disable();
  storages.firstUsedIn.delete(storage);
}
