import type { Infer } from './schema';
import { s } from './schema';
import { approvalCallSchema } from './approval-call';
import { APPROVAL_STATES, ON_DENIAL_VALUES } from './vocabulary';

/** One request for approval (a run and a model round), as the approvals read model shows it. Times are ms since the epoch. */
export const approvalRowSchema = s
  .object({
    approvalId: s.string().describe("`<runId>/r<round>`: the request's key"),
    runId: s.string(),
    agent: s.string().describe("The run's agent"),
    round: s.integer().describe('The model round whose calls wait for the decision (the `round` of POST /runs/{runId}/approval)'),
    calls: s.array(approvalCallSchema).describe('The calls one decision covers, exactly as the model asked for them'),
    onDenial: s.enum(ON_DENIAL_VALUES),
    requestedAt: s.integer().describe('When the run started to wait'),
    state: s.enum(APPROVAL_STATES).describe('`pending` (the run waits), `approved`, `denied`, or `cancelled` (the run was settled while it waited)'),
    decidedBy: s.nullable(s.string()).describe("Who decided, as its principal's label (`key:<id>`, `development`, `bus:<id>`, `unverified:<name>`); null while pending"),
    reason: s.nullable(s.string()).describe("The reason the person gave; for `cancelled`, the run's termination reason. Null while pending"),
    decidedAt: s.nullable(s.integer()).describe('When it was decided (for `cancelled`: when the run was settled). Null while pending'),
  })
  .named('ApprovalRow')
  .describe('One request for approval (a run and a model round), as the approvals read model shows it. Times are ms since the epoch.');

/** {@link approvalRowSchema}'s type. */
export type ApprovalRow = Infer<typeof approvalRowSchema>;

/** `GET /approvals`: a page of requests for approval, newest first (requestedAt, then approvalId). */
export const approvalPageSchema = s
  .object({
    approvals: s.array(approvalRowSchema),
    nextCursor: s.nullable(s.string()).describe('Pass it as `cursor` for the next page; null on the last page'),
  })
  .named('ApprovalPage')
  .describe('A page of requests for approval, newest first (requestedAt, then approvalId)');

/** {@link approvalPageSchema}'s type. */
export type ApprovalPage = Infer<typeof approvalPageSchema>;
