import { agentsAnswerSchema } from './agents-answer';
import { apiErrorBodySchema } from './api-error-body';
import { approvalPageSchema } from './approval-page';
import { auditReviewAnswerSchema } from './audit-review-answer';
import { auditStoreVerdictSchema } from './audit-store-verdict';
import { cancelRunAnswerSchema } from './cancel-run-answer';
import { healthReportSchema } from './health-report';
import { meAnswerSchema } from './me-answer';
import { openApiDocumentSchema } from './openapi-document';
import { projectionsAnswerSchema } from './projections-answer';
import { auditChainsQuerySchema, auditReviewQuerySchema, eventStreamQuerySchema, listApprovalsQuerySchema, listRunsQuerySchema } from './query-parameters';
import { readinessReportSchema } from './readiness-report';
import { rebuildAnswerSchema } from './rebuild-answer';
import { requeueRunAcceptedSchema } from './requeue-run-accepted';
import { cancelRunRequestSchema, decideApprovalRequestSchema, requeueRunRequestSchema, startRebuildRequestSchema, startRunRequestSchema, submitInputRequestSchema } from './request-bodies';
import { runPageSchema } from './run-page';
import { runResumeAnswerSchema } from './run-resume-answer';
import { runStatusRowSchema } from './run-status-row';
import { runStepsAnswerSchema } from './run-steps-answer';
import type { Schema } from './schema';
import { startRunAcceptedSchema, startRunInteractiveSchema } from './start-run-answer';
import { streamedEventSchema } from './streamed-event';

/**
 * Every named schema of the API's bodies (answers, request bodies and the
 * error body), by component name: what the service's OpenAPI document puts
 * under `components.schemas` (with {@link toComponentSchemas}).
 */
export const apiSchemas = {
  StartRunRequest: startRunRequestSchema,
  StartRunAccepted: startRunAcceptedSchema,
  StartRunInteractive: startRunInteractiveSchema,
  RunPage: runPageSchema,
  RunStatusRow: runStatusRowSchema,
  RunStepsAnswer: runStepsAnswerSchema,
  CancelRunRequest: cancelRunRequestSchema,
  CancelRunAnswer: cancelRunAnswerSchema,
  RequeueRunRequest: requeueRunRequestSchema,
  RequeueRunAccepted: requeueRunAcceptedSchema,
  DecideApprovalRequest: decideApprovalRequestSchema,
  SubmitInputRequest: submitInputRequestSchema,
  RunResumeAnswer: runResumeAnswerSchema,
  ApprovalPage: approvalPageSchema,
  AuditReviewAnswer: auditReviewAnswerSchema,
  AuditStoreVerdict: auditStoreVerdictSchema,
  AgentsAnswer: agentsAnswerSchema,
  MeAnswer: meAnswerSchema,
  ProjectionsAnswer: projectionsAnswerSchema,
  StartRebuildRequest: startRebuildRequestSchema,
  RebuildAnswer: rebuildAnswerSchema,
  HealthReport: healthReportSchema,
  ReadinessReport: readinessReportSchema,
  OpenApiDocument: openApiDocumentSchema,
  StreamedEvent: streamedEventSchema,
  ApiErrorBody: apiErrorBodySchema,
} as const satisfies Readonly<Record<string, Schema<unknown>>>;

/** The name of one of {@link apiSchemas}. */
export type ApiSchemaName = keyof typeof apiSchemas;

/** A successful answer's body: a JSON schema, or a text format described in words. */
export type RouteAnswer = ApiSchemaName | 'text/event-stream' | 'text/plain';

/** One route of the HTTP API: its query, body, and each successful status's answer. */
export interface ApiRoute {
  readonly method: 'GET' | 'POST';
  /** The path, with `{runId}` for the path parameter. */
  readonly path: string;
  /** The client method that calls it. */
  readonly clientMethod: string;
  readonly query?: Schema<unknown>;
  readonly body?: ApiSchemaName;
  /** Whether the body may be left out. */
  readonly bodyOptional?: boolean;
  /** Each successful status and its body. Every route's errors are {@link apiSchemas}`.ApiErrorBody`. */
  readonly answers: Readonly<Record<number, RouteAnswer>>;
}

/** Every route of the HTTP API (the console's static files aside), and which schema each answers. */
export const apiRoutes: readonly ApiRoute[] = [
  { method: 'POST', path: '/runs', clientMethod: 'startRun', body: 'StartRunRequest', answers: { 202: 'StartRunAccepted', 200: 'StartRunInteractive' } },
  { method: 'GET', path: '/runs', clientMethod: 'listRuns', query: listRunsQuerySchema, answers: { 200: 'RunPage' } },
  { method: 'GET', path: '/runs/{runId}', clientMethod: 'getRun', answers: { 200: 'RunStatusRow' } },
  { method: 'GET', path: '/runs/{runId}/steps', clientMethod: 'getSteps', answers: { 200: 'RunStepsAnswer' } },
  { method: 'POST', path: '/runs/{runId}/approval', clientMethod: 'decideApproval', body: 'DecideApprovalRequest', answers: { 200: 'RunResumeAnswer' } },
  { method: 'POST', path: '/runs/{runId}/input', clientMethod: 'submitInput', body: 'SubmitInputRequest', answers: { 200: 'RunResumeAnswer' } },
  { method: 'GET', path: '/approvals', clientMethod: 'listApprovals', query: listApprovalsQuerySchema, answers: { 200: 'ApprovalPage' } },
  { method: 'POST', path: '/runs/{runId}/cancel', clientMethod: 'cancelRun', body: 'CancelRunRequest', bodyOptional: true, answers: { 200: 'CancelRunAnswer', 202: 'CancelRunAnswer' } },
  { method: 'POST', path: '/runs/{runId}/requeue', clientMethod: 'requeueRun', body: 'RequeueRunRequest', bodyOptional: true, answers: { 202: 'RequeueRunAccepted' } },
  { method: 'GET', path: '/runs/{runId}/events', clientMethod: 'runEvents', query: eventStreamQuerySchema, answers: { 200: 'text/event-stream' } },
  { method: 'GET', path: '/events', clientMethod: 'events', query: eventStreamQuerySchema, answers: { 200: 'text/event-stream' } },
  { method: 'GET', path: '/audit/review', clientMethod: 'auditReview', query: auditReviewQuerySchema, answers: { 200: 'AuditReviewAnswer' } },
  { method: 'GET', path: '/audit/chains', clientMethod: 'auditChains', query: auditChainsQuerySchema, answers: { 200: 'AuditStoreVerdict' } },
  { method: 'GET', path: '/agents', clientMethod: 'listAgents', answers: { 200: 'AgentsAnswer' } },
  { method: 'GET', path: '/me', clientMethod: 'me', answers: { 200: 'MeAnswer' } },
  { method: 'GET', path: '/projections', clientMethod: 'projections', answers: { 200: 'ProjectionsAnswer' } },
  { method: 'POST', path: '/projections/rebuild', clientMethod: 'startRebuild', body: 'StartRebuildRequest', bodyOptional: true, answers: { 202: 'RebuildAnswer' } },
  { method: 'GET', path: '/projections/rebuild', clientMethod: 'rebuildStatus', answers: { 200: 'RebuildAnswer' } },
  { method: 'GET', path: '/metrics', clientMethod: 'metrics', answers: { 200: 'text/plain' } },
  { method: 'GET', path: '/openapi.json', clientMethod: 'openApiDocument', answers: { 200: 'OpenApiDocument' } },
  { method: 'GET', path: '/health', clientMethod: 'health', answers: { 200: 'HealthReport' } },
  { method: 'GET', path: '/ready', clientMethod: 'ready', answers: { 200: 'ReadinessReport', 503: 'ReadinessReport' } },
];
