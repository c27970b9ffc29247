/**
 * The HTTP API of agent-ledger as a Nest module: runs, approvals, input,
 * events (SSE), audit, read models, agents, metrics, OpenAPI, health, API
 * keys and the console's static files, on top of the runtime and its read
 * models (`AgentLedgerHttpModule`).
 */
export * from './agent-ledger-http.module';
export * from './set-up-agent-ledger-http';
export * from './http-api-options';
export * from './http-api';
export * from './auth/api-keys';
export * from './auth/auth-mode-warning';
export * from './console/built-console-dir';
export * from './console/console-security-headers';
export * from './openapi/openapi-document';
export * from './errors/api-error-body';
export type { AgentsAnswer } from './agents/agent-summary';
export type { MeAnswer } from './me/me.controller';
export type { AuditReviewAnswer } from './audit/audit-review-answer';
export type { RebuildAnswer } from './projections/projection-rebuild.controller';
export type { ProjectionsAnswer } from './projections/read-models.controller';
export type { RunStepsAnswer } from './runs/runs.controller';
export type { RunView } from './runs/run-view';
export type { RunResumeAnswer, StartRunInteractive } from './runs/run-answers';
export type { StreamedEvent } from './events/sse-frame';
export { Authenticated, Public, RequireScope } from './auth/auth.decorators';
export { Caller } from './auth/api-caller';
export type { ApiCaller } from './auth/api-caller';
