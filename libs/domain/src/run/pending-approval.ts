import type { ApprovalCall, OnDenial } from './run-events';

/** The calls a run waits to have approved. */
export interface PendingApproval {
  readonly round: number;
  readonly calls: readonly ApprovalCall[];
  readonly onDenial: OnDenial;
  readonly requestedAt: number;
}
