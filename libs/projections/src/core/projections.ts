import { approvalsProjection } from '../approvals/approvals.projection';
import { auditReviewProjection } from '../audit-review/audit-review.projection';
import { UnknownProjectionError } from '../errors/unknown-projection.error';
import { runStatusProjection } from '../run-status/run-status.projection';
import { stepsProjection } from '../steps/steps.projection';
import type { ProjectionDefinition } from './projection-definition';

/** Every projection of this library, in a fixed order. */
export const ALL_PROJECTIONS: readonly ProjectionDefinition[] = Object.freeze([runStatusProjection, stepsProjection, auditReviewProjection, approvalsProjection]);

/**
 * The definitions of the named projections, in the order given.
 * @throws UnknownProjectionError for a name not in `from`.
 */
export function selectProjections(names: readonly string[], from: readonly ProjectionDefinition[] = ALL_PROJECTIONS): ProjectionDefinition[] {
  return names.map((name) => {
    const definition = from.find((d) => d.name === name);
    if (definition === undefined) throw new UnknownProjectionError(name);
    return definition;
  });
}
