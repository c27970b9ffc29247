import type * as PgLibrary from 'pg';
import { lazyLibrary } from '../core/client-library';

/** `pg`, loaded by the first PostgreSQL adapter that connects (see {@link lazyLibrary}). */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use, not when the package is imported
export const pg = lazyLibrary<typeof PgLibrary>(() => require('pg'));
