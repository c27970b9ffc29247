import type { OnDenial } from '@agent-ledger/domain';

/**
 * When an agent's tool calls wait for a person's approval.
 *
 * A write tool (`IDEMPOTENT_WRITE` or `NON_IDEMPOTENT_WRITE`) asks a person's
 * approval before it executes (the run waits, `WAITING_FOR_APPROVAL`, holding
 * no lease), unless the agent lists it in {@link preApproved}. A tool whose
 * code declares `requiresApproval` asks before every call, whatever is listed
 * here. A read-only tool never asks for its effect.
 */
export interface AgentApprovals {
  /**
   * Write tools of the agent that execute without asking: an operator's
   * decision, made in configuration, and recorded in the run's events
   * (`ToolCallPreApproved`) each time it applies. Each must be one of the
   * agent's `tools`.
   * @default []
   */
  readonly preApproved: readonly string[];
  /**
   * What a denial does: `'tellModel'` shows the model that the call was
   * denied (its result says so) and the run goes on; `'endRun'` ends the run
   * `FAILED` with the reason `APPROVAL_DENIED`.
   * @default 'endRun'
   */
  readonly onDenial: OnDenial;
}

/** Every {@link OnDenial} value. */
export const ON_DENIAL_VALUES: readonly OnDenial[] = Object.freeze(['tellModel', 'endRun'] as const);

/** The approvals of an agent that configures none: every write asks, a denial ends the run. */
export const DEFAULT_AGENT_APPROVALS: AgentApprovals = Object.freeze({
  preApproved: Object.freeze([]) as readonly string[],
  onDenial: 'endRun',
});
