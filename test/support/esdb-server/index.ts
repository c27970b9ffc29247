export { startEsdbTestServer } from './esdb-test-server';
export type { EsdbTestServer, EsdbTestServerOptions } from './esdb-test-server';
export { EsdbTestServerError } from './esdb-test-server-error';
export type { EsdbTestServerErrorCode } from './esdb-test-server-error';
export { ticksToUnixMillis, unixMillisToTicks } from './ticks';
export type { AppendConflictStats, StreamAppendConflicts } from './append-conflicts';
export { startEsdbTestServerProcess } from './esdb-server-process';
export type { EsdbTestServerProcess, EsdbTestServerProcessOptions } from './esdb-server-process';
export type { StandaloneReady, StandaloneStats } from './standalone-protocol';
