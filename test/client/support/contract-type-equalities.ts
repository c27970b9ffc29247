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
import type { ReadinessReport } from '../../../libs/http/src/health/readiness.service';
import type { AgentsAnswer } from '../../../libs/http/src/agents/agent-summary';
import type { AuditReviewAnswer } from '../../../libs/http/src/audit/audit-review-answer';
import type { ApiErrorBody } from '../../../libs/http/src/errors/api-error-body';
import type { StreamedEvent } from '../../../libs/http/src/events/sse-frame';
import type { SameFields } from './same-fields';
import type { RebuildState } from '../../../libs/http/src/projections/rebuild-state';
import type { ProjectionsAnswer } from '../../../libs/http/src/projections/read-models.controller';
import type { StartRebuildDto } from '../../../libs/http/src/projections/rebuild-dtos';
import type { CancelRunDto, DecideApprovalDto, InFlightWriteResolutionDto, RequeueRunDto, StartRunDto, SubmitInputDto } from '../../../libs/http/src/runs/run-dtos';
import type { RunStepView, RunView } from '../../../libs/http/src/runs/run-view';

/** `T` as JSON carries it: the store's branded `Position` is a plain string on the wire. */
type Wire<T> = T extends Position ? string : T extends readonly (infer U)[] ? readonly Wire<U>[] : T extends object ? { readonly [K in keyof T]: Wire<T[K]> } : T;

/**
 * Every answer's contract type, against the service's own type its handler
 * returns. The answers the handlers type with the contract's own types
 * (`StartRunAccepted`, `StartRunInteractive`, `CancelRunAnswer`,
 * `RequeueRunAccepted`, `RunResumeAnswer`, `RunStepsAnswer`, `MeAnswer`,
 * `HealthReport`, `RebuildAnswer`) need no line here: the compiler checks
 * each value the handler builds against the contract.
 */
export const contractMatchesService = {
  RunStatusRow: true satisfies SameFields<Client.RunStatusRow, RunStatusRow>,
  RunPage: true satisfies SameFields<Client.RunPage, RunPage>,
  StepRow: true satisfies SameFields<Client.StepRow, StepRow>,
  RunStepView: true satisfies SameFields<Client.RunStepView, RunStepView>,
  RunView: true satisfies SameFields<Client.RunView, RunView>,
  ApprovalRow: true satisfies SameFields<Client.ApprovalRow, ApprovalRow>,
  ApprovalPage: true satisfies SameFields<Client.ApprovalPage, ApprovalPage>,
  AuditReviewReport: true satisfies SameFields<Omit<Client.AuditReviewAnswer, 'verdict' | 'findings'>, AuditReviewReport>,
  AuditReviewAnswer: true satisfies SameFields<Client.AuditReviewAnswer, AuditReviewAnswer>,
  AuditStoreVerdict: true satisfies SameFields<Client.AuditStoreVerdict, AuditStoreVerdict>,
  AgentsAnswer: true satisfies SameFields<Client.AgentsAnswer, AgentsAnswer>,
  ProjectionsAnswer: true satisfies SameFields<Client.ProjectionsAnswer, Wire<ProjectionsAnswer>>,
  RebuildState: true satisfies SameFields<Client.RebuildAnswer['rebuild'], RebuildState>,
  ReadinessReport: true satisfies SameFields<Omit<Client.ReadinessReport, 'info' | 'error' | 'details'>, Omit<ReadinessReport, 'info' | 'error' | 'details'>>,
  StreamedEvent: true satisfies SameFields<Client.StreamedEvent, StreamedEvent>,
  ApiErrorBody: true satisfies SameFields<Client.ApiErrorBody, ApiErrorBody>,
};

/** Every request body's contract type, against the service's validation class (`@agent-ledger/http`'s DTOs). */
export const requestBodiesMatchService = {
  StartRunRequest: true satisfies SameFields<Client.StartRunRequest, StartRunDto>,
  CancelRunRequest: true satisfies SameFields<Client.CancelRunRequest, CancelRunDto>,
  RequeueRunRequest: true satisfies SameFields<Omit<Client.RequeueRunRequest, 'resolution'>, Omit<RequeueRunDto, 'resolution'>>,
  InFlightWriteResolution: true satisfies SameFields<NonNullable<Client.RequeueRunRequest['resolution']>, InFlightWriteResolutionDto>,
  DecideApprovalRequest: true satisfies SameFields<Client.DecideApprovalRequest, DecideApprovalDto>,
  SubmitInputRequest: true satisfies SameFields<Client.SubmitInputRequest, SubmitInputDto>,
  StartRebuildRequest: true satisfies SameFields<Client.StartRebuildRequest, StartRebuildDto>,
};
