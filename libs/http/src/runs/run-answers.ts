/**
 * The answers of the run routes are the client's contract's types (one
 * source with the OpenAPI document's schemas): a handler that builds one
 * with a field missing, a field of another type, or a status the contract
 * does not list, does not compile.
 */
export type { CancelRunAnswer, RequeueRunAccepted, RunResumeAnswer, StartRunAccepted, StartRunInteractive } from '@agent-ledger/client';
