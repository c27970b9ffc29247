/**
 * `@agent-ledger/client`: a typed client of the agent-ledger HTTP API for
 * Node 20 and browsers, with the API's contract (the schemas of every
 * answer and body, with their JSON Schemas). No dependency.
 */
export * from './contract/index';
export { AgentLedgerClient, createClient } from './client';
export type { AgentLedgerClientOptions, ListApprovalsOptions, ListRunsOptions, StartInteractiveRunRequest, StartQueuedRunRequest, StartRunParams } from './client';
export type { FetchLike, RequestOptions, TransportOptions } from './http/transport';
export type { Instant, QueryValue } from './http/query-string';
export { queryString } from './http/query-string';
export { AgentLedgerError } from './errors/agent-ledger-error';
export { AgentLedgerApiError } from './errors/api-error';
export { AgentLedgerConnectionError } from './errors/connection-error';
export type { ConnectionFailure } from './errors/connection-error';
export { AgentLedgerWaitError } from './errors/wait-error';
export { AgentLedgerStreamError } from './errors/stream-error';
export { AgentLedgerStreamEndedError, MalformedFrameError } from './events/event-stream';
export type { EventStreamConnection, EventStreamOptions, FollowRunOptions, ReconnectOptions } from './events/event-stream';
export { SseParser } from './events/sse-parser';
export type { SseFrame } from './events/sse-parser';
export { readSseFrames } from './events/sse-reader';
export { isSettled } from './runs/wait-for-settled';
export type { SettleOn, WaitForSettledOptions } from './runs/wait-for-settled';
