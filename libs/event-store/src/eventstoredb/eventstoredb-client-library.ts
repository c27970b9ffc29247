import type * as EventStoreDbClientLibrary from '@eventstore/db-client';
import { lazyLibrary } from '../core/client-library';

/** `@eventstore/db-client`, loaded by the first EventStoreDB adapter that needs it (see {@link lazyLibrary}). */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use, not when the package is imported
export const esdb = lazyLibrary<typeof EventStoreDbClientLibrary>(() => require('@eventstore/db-client'));
