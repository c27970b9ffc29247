import type { Infer } from './schema';
import { s } from './schema';
import { approvalCallSchema } from './approval-call';
import { ON_DENIAL_VALUES } from './vocabulary';

/** What a `WAITING_FOR_APPROVAL` run waits for: the calls of one model round (one decision covers them all). */
export const pendingApprovalSchema = s
  .object({
    round: s.integer(),
    calls: s.array(approvalCallSchema),
    onDenial: s.enum(ON_DENIAL_VALUES).describe('What a denial does: `tellModel` (the model is told) or `endRun` (the run ends APPROVAL_DENIED)'),
    requestedAt: s.integer().describe('ms since the epoch'),
  })
  .named('PendingApproval')
  .describe('The calls of one model round that wait for a decision (one decision covers them all)');

/** {@link pendingApprovalSchema}'s type. */
export type PendingApproval = Infer<typeof pendingApprovalSchema>;
