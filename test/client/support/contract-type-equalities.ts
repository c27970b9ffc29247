/**
 * Compile-time proof that the client's contract types (inferred from its
 * schemas) are the service's own types: each line fails to compile when a
 * field is missing on either side, is optional on one side only, or has
 * another type (an enum value added, a `| null`). Checked by
 * `npm run typecheck` and by `contract-types.spec.ts`.
 */
import type * as Client from '@agent-ledger/client';
import type { ApprovalPage, ApprovalRow, AuditReviewReport, RunPage, RunStatusRow, StepRow } from '@agent-ledger/projections';
import type { Position } from '@agent-ledger/event-store';
import type { AuditStoreVerdict } from '@agent-ledger/runtime';
import type { HealthReport } from '../../../libs/http/src/health/health.controller';
import type { ReadinessReport } from '../../../libs/http/src/health/readiness.service';
import type { AgentsAnswer } from '../../../libs/http/src/agents/agent-summary';
import type { AuditReviewAnswer } from '../../../libs/http/src/audit/audit-review-answer';
import type { ApiErrorBody } from '../../../libs/http/src/errors/api-error-body';
import type { StreamedEvent } from '../../../libs/http/src/events/sse-frame';
import type { MeAnswer } from '../../../libs/http/src/me/me.controller';
import type { DocMatches } from '../../../libs/http/src/openapi/doc-matches';
import type { RebuildAnswer } from '../../../libs/http/src/projections/projection-rebuild.controller';
import type { ProjectionsAnswer } from '../../../libs/http/src/projections/read-models.controller';
import type { CancelRunAnswer, RequeueRunAccepted, RunResumeAnswer, StartRunAccepted, StartRunInteractive } from '../../../libs/http/src/runs/run-answers';
import type { RunStepView, RunView } from '../../../libs/http/src/runs/run-view';
import type { RunStepsAnswer } from '../../../libs/http/src/runs/runs.controller';

/** `T` as JSON carries it: the store's branded `Position` is a plain string on the wire. */
type Wire<T> = T extends Position ? string : T extends readonly (infer U)[] ? readonly Wire<U>[] : T extends object ? { readonly [K in keyof T]: Wire<T[K]> } : T;

/** Every answer's contract type, against the type the service's handler returns. */
export const contractMatchesService = {
  RunStatusRow: true satisfies DocMatches<Client.RunStatusRow, RunStatusRow>,
  RunPage: true satisfies DocMatches<Client.RunPage, RunPage>,
  StepRow: true satisfies DocMatches<Client.StepRow, StepRow>,
  RunStepsAnswer: true satisfies DocMatches<Client.RunStepsAnswer, RunStepsAnswer>,
  RunStepView: true satisfies DocMatches<Client.RunStepView, RunStepView>,
  RunView: true satisfies DocMatches<Client.RunView, RunView>,
  StartRunAccepted: true satisfies DocMatches<Client.StartRunAccepted, StartRunAccepted>,
  StartRunInteractive: true satisfies DocMatches<Client.StartRunInteractive, StartRunInteractive>,
  CancelRunAnswer: true satisfies DocMatches<Client.CancelRunAnswer, CancelRunAnswer>,
  RequeueRunAccepted: true satisfies DocMatches<Client.RequeueRunAccepted, RequeueRunAccepted>,
  RunResumeAnswer: true satisfies DocMatches<Client.RunResumeAnswer, RunResumeAnswer>,
  ApprovalRow: true satisfies DocMatches<Client.ApprovalRow, ApprovalRow>,
  ApprovalPage: true satisfies DocMatches<Client.ApprovalPage, ApprovalPage>,
  AuditReviewReport: true satisfies DocMatches<Omit<Client.AuditReviewAnswer, 'verdict' | 'findings'>, AuditReviewReport>,
  AuditReviewAnswer: true satisfies DocMatches<Client.AuditReviewAnswer, AuditReviewAnswer>,
  AuditStoreVerdict: true satisfies DocMatches<Client.AuditStoreVerdict, AuditStoreVerdict>,
  AgentsAnswer: true satisfies DocMatches<Client.AgentsAnswer, AgentsAnswer>,
  MeAnswer: true satisfies DocMatches<Client.MeAnswer, MeAnswer>,
  ProjectionsAnswer: true satisfies DocMatches<Client.ProjectionsAnswer, Wire<ProjectionsAnswer>>,
  RebuildAnswer: true satisfies DocMatches<Client.RebuildAnswer, RebuildAnswer>,
  HealthReport: true satisfies DocMatches<Client.HealthReport, HealthReport>,
  ReadinessReport: true satisfies DocMatches<Omit<Client.ReadinessReport, 'info' | 'error' | 'details'>, Omit<ReadinessReport, 'info' | 'error' | 'details'>>,
  StreamedEvent: true satisfies DocMatches<Client.StreamedEvent, StreamedEvent>,
  ApiErrorBody: true satisfies DocMatches<Client.ApiErrorBody, ApiErrorBody>,
};
