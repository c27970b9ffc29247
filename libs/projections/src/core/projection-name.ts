/** The read models this library maintains. Each can be rebuilt on its own. */
export const ProjectionName = {
  /** One row per run: status, reason, lease, current step, counts of steps by effect. */
  RUN_STATUS: 'runStatus',
  /** One row per step: effect, outcome, idempotency key, audit state. */
  STEPS: 'steps',
  /** Every write with its audit state, fail-closed runs, gaps, writes interrupted in flight. */
  AUDIT_REVIEW: 'auditReview',
  /** One row per request for approval: the calls, where it stands, who decided and when. */
  APPROVALS: 'approvals',
} as const;

/** One of the {@link ProjectionName} values. */
export type ProjectionName = (typeof ProjectionName)[keyof typeof ProjectionName];

/** Every projection name, in a fixed order. */
export const PROJECTION_NAMES: readonly ProjectionName[] = Object.freeze(Object.values(ProjectionName));

/** Whether `value` names a projection. */
export function isProjectionName(value: unknown): value is ProjectionName {
  return typeof value === 'string' && (PROJECTION_NAMES as readonly string[]).includes(value);
}
