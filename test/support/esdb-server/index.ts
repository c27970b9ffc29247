export { startEsdbTestServer } from './esdb-test-server';
export type { EsdbTestServer, EsdbTestServerOptions } from './esdb-test-server';
export { EsdbTestServerError } from './esdb-test-server-error';
export type { EsdbTestServerErrorCode } from './esdb-test-server-error';
export { ticksToUnixMillis, unixMillisToTicks } from './ticks';
