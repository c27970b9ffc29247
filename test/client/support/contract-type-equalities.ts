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
import type { SameFields } from './same-fields';
import type { RebuildAnswer } from '../../../libs/http/src/projections/projection-rebuild.controller';
import type { ProjectionsAnswer } from '../../../libs/http/src/projections/read-models.controller';
import type { CancelRunAnswer, RequeueRunAccepted, RunResumeAnswer, StartRunAccepted, StartRunInteractive } from '../../../libs/http/src/runs/run-answers';
import type { RunStepView, RunView } from '../../../libs/http/src/runs/run-view';
import type { RunStepsAnswer } from '../../../libs/http/src/runs/runs.controller';

/** `T` as JSON carries it: the store's branded `Position` is a plain string on the wire. */
type Wire<T> = T extends Position ? string : T extends readonly (infer U)[] ? readonly Wire<U>[] : T extends object ? { readonly [K in keyof T]: Wire<T[K]> } : T;

/** Every answer's contract type, against the type the service's handler returns. */
export const contractMatchesService = {
  RunStatusRow: true satisfies SameFields<Client.RunStatusRow, RunStatusRow>,
  RunPage: true satisfies SameFields<Client.RunPage, RunPage>,
  StepRow: true satisfies SameFields<Client.StepRow, StepRow>,
  RunStepsAnswer: true satisfies SameFields<Client.RunStepsAnswer, RunStepsAnswer>,
  RunStepView: true satisfies SameFields<Client.RunStepView, RunStepView>,
  RunView: true satisfies SameFields<Client.RunView, RunView>,
  StartRunAccepted: true satisfies SameFields<Client.StartRunAccepted, StartRunAccepted>,
  StartRunInteractive: true satisfies SameFields<Client.StartRunInteractive, StartRunInteractive>,
  CancelRunAnswer: true satisfies SameFields<Client.CancelRunAnswer, CancelRunAnswer>,
  RequeueRunAccepted: true satisfies SameFields<Client.RequeueRunAccepted, RequeueRunAccepted>,
  RunResumeAnswer: true satisfies SameFields<Client.RunResumeAnswer, RunResumeAnswer>,
  ApprovalRow: true satisfies SameFields<Client.ApprovalRow, ApprovalRow>,
  ApprovalPage: true satisfies SameFields<Client.ApprovalPage, ApprovalPage>,
  AuditReviewReport: true satisfies SameFields<Omit<Client.AuditReviewAnswer, 'verdict' | 'findings'>, AuditReviewReport>,
  AuditReviewAnswer: true satisfies SameFields<Client.AuditReviewAnswer, AuditReviewAnswer>,
  AuditStoreVerdict: true satisfies SameFields<Client.AuditStoreVerdict, AuditStoreVerdict>,
  AgentsAnswer: true satisfies SameFields<Client.AgentsAnswer, AgentsAnswer>,
  MeAnswer: true satisfies SameFields<Client.MeAnswer, MeAnswer>,
  ProjectionsAnswer: true satisfies SameFields<Client.ProjectionsAnswer, Wire<ProjectionsAnswer>>,
  RebuildAnswer: true satisfies SameFields<Client.RebuildAnswer, RebuildAnswer>,
  HealthReport: true satisfies SameFields<Client.HealthReport, HealthReport>,
  ReadinessReport: true satisfies SameFields<Omit<Client.ReadinessReport, 'info' | 'error' | 'details'>, Omit<ReadinessReport, 'info' | 'error' | 'details'>>,
  StreamedEvent: true satisfies SameFields<Client.StreamedEvent, StreamedEvent>,
  ApiErrorBody: true satisfies SameFields<Client.ApiErrorBody, ApiErrorBody>,
};
