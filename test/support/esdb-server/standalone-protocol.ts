import type { AppendConflictStats } from './append-conflicts';
import { EsdbTestServerError } from './esdb-test-server-error';

/** The first words of the line `standalone.ts` prints once it listens, followed by {@link StandaloneReady} as JSON. */
export const READY_LINE_PREFIX = 'esdb-test-server ready ';
/** The first words of the line it prints when it stopped, followed by {@link StandaloneStats} as JSON. */
export const STOPPED_LINE_PREFIX = 'esdb-test-server stopped ';

/** What the ready line carries. */
export interface StandaloneReady {
  readonly pid: number;
  readonly host: string;
  readonly port: number;
  /** `esdb://<host>:<port>?tls=false` */
  readonly connectionString: string;
  /** `http://<host>:<port>/stats`: answers {@link StandaloneStats}. */
  readonly statsUrl: string;
}

/** What `GET /stats` answers (and the stopped line carries). */
export interface StandaloneStats {
  readonly appendConflicts: AppendConflictStats;
}

/** The command line of `standalone.ts`. */
export interface StandaloneArguments {
  readonly host: string;
  readonly port: number;
}

/** Parses `[--port N] [--host H]`; anything else is an `invalid-option` error naming it. */
export function parseStandaloneArguments(argv: readonly string[]): StandaloneArguments {
  let host = '127.0.0.1';
  let port = 0;
  for (let i = 0; i < argv.length; i += 1) {
    const flag = argv[i];
    const value = argv[i + 1];
    if ((flag === '--port' || flag === '--host') && (value === undefined || value.startsWith('--'))) {
      throw new EsdbTestServerError('invalid-option', `${flag} needs a value`);
    }
    if (flag === '--port') {
      port = Number(value);
      if (!/^\d+$/.test(value as string) || port > 65_535) throw new EsdbTestServerError('invalid-option', `--port must be an integer in [0, 65535], got ${String(value)}`);
      i += 1;
    } else if (flag === '--host') {
      host = value as string;
      i += 1;
    } else {
      throw new EsdbTestServerError('invalid-option', `unknown argument ${String(flag)}; known: --port <n>, --host <address>`);
    }
  }
  return { host, port };
}
