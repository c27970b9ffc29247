import type { Infer } from './schema';
import { s } from './schema';
import { APPROVAL_DECISIONS, PROJECTION_NAMES, RUN_MODES } from './vocabulary';

/** A run id: 1 to 128 letters, digits, `.`, `_`, `:` or `-`, starting with a letter or digit. */
export const RUN_ID_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$';

/** The body of `POST /runs` (unknown fields are refused). */
export const startRunRequestSchema = s
  .object({
    agent: s.string({ minLength: 1, maxLength: 128 }).describe("The agent's name, as configured"),
    input: s.json().describe('The task: any JSON value, null included (a string is shown to the model as is)'),
    mode: s.optional(s.enum(RUN_MODES)).describe('`interactive`: executed during the request; `queued` (default): executed by a worker'),
    runId: s.optional(s.string({ pattern: RUN_ID_PATTERN })).describe('The run id; default a random UUID (or one derived from idempotencyKey)'),
    idempotencyKey: s.optional(s.string({ minLength: 1, maxLength: 255 })).describe('Makes the request safe to repeat: the same key gives the same run (not with runId)'),
  })
  .named('StartRunRequest')
  .describe('The body of POST /runs');

/** {@link startRunRequestSchema}'s type. */
export type StartRunRequest = Infer<typeof startRunRequestSchema>;

/** The body of `POST /runs/{runId}/cancel` (optional). Who asks is the caller's key, never the body. */
export const cancelRunRequestSchema = s
  .object({ reason: s.optional(s.string({ minLength: 1, maxLength: 500 })).describe("Why, for the record (the caller's own words)") })
  .named('CancelRunRequest')
  .describe('The body of POST /runs/{runId}/cancel');

/** {@link cancelRunRequestSchema}'s type. */
export type CancelRunRequest = Infer<typeof cancelRunRequestSchema>;

/** An operator's statement of what became of a write that was in flight. */
export const inFlightWriteResolutionSchema = s
  .object({
    outcome: s.enum(['executed', 'notExecuted']),
    note: s.string({ minLength: 1, maxLength: 2000 }).describe('How the operator knows'),
  })
  .named('InFlightWriteResolution')
  .describe('What became of the write that was in flight');

/** The body of `POST /runs/{runId}/requeue` (optional). */
export const requeueRunRequestSchema = s
  .object({
    reason: s.optional(s.string({ minLength: 1, maxLength: 500 })).describe("Why, for the record (the caller's own words)"),
    resolution: s.optional(inFlightWriteResolutionSchema).describe('Required when a NON_IDEMPOTENT_WRITE was in flight when the run was dead-lettered'),
  })
  .named('RequeueRunRequest')
  .describe('The body of POST /runs/{runId}/requeue');

/** {@link requeueRunRequestSchema}'s type. */
export type RequeueRunRequest = Infer<typeof requeueRunRequestSchema>;

/** The body of `POST /runs/{runId}/approval`. Who decides is the caller's key. */
export const decideApprovalRequestSchema = s
  .object({
    decision: s.enum(APPROVAL_DECISIONS).describe('`approve`: the calls execute; `deny`: they never do'),
    reason: s.optional(s.string({ minLength: 1, maxLength: 500 })).describe('Why, for the record and the audit trail'),
    round: s.optional(s.integer({ minimum: 0, maximum: 19 })).describe('The round of the request the person saw (pendingApproval.round); default the request the run waits for'),
  })
  .named('DecideApprovalRequest')
  .describe('The body of POST /runs/{runId}/approval');

/** {@link decideApprovalRequestSchema}'s type. */
export type DecideApprovalRequest = Infer<typeof decideApprovalRequestSchema>;

/** The body of `POST /runs/{runId}/input`. */
export const submitInputRequestSchema = s
  .object({ input: s.json().describe('The answer: any JSON value, null included') })
  .named('SubmitInputRequest')
  .describe('The body of POST /runs/{runId}/input');

/** {@link submitInputRequestSchema}'s type. */
export type SubmitInputRequest = Infer<typeof submitInputRequestSchema>;

/** The body of `POST /projections/rebuild` (optional). */
export const startRebuildRequestSchema = s
  .object({ projection: s.optional(s.enum(PROJECTION_NAMES)).describe('The projection to rebuild; default every projection') })
  .named('StartRebuildRequest')
  .describe('The body of POST /projections/rebuild');

/** {@link startRebuildRequestSchema}'s type. */
export type StartRebuildRequest = Infer<typeof startRebuildRequestSchema>;
