/**
 * Loads a store's client library the first time an adapter needs it, not when
 * the package is imported: a host on the embedded store never loads gRPC
 * (`@eventstore/db-client`) or `pg`, and its command-line tools start faster.
 * Each adapter imports the library's types only (`import type`) and its values
 * through the function this returns.
 */
export function lazyLibrary<T>(load: () => T): () => T {
  let library: T | undefined;
  return () => (library ??= load());
}
