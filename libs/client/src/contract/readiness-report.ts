import type { Infer } from './schema';
import { s } from './schema';
import { projectionLagSchema } from './projection-lag';
import { AUTH_MODES } from './vocabulary';

/** One indicator (`store:<name>` or `projection:<name>@<source>`) in the `@nestjs/terminus` shape. */
export const healthIndicatorSchema = s
  .object({
    status: s.enum(['up', 'down']),
    problem: s.optional(s.string()).describe('Why it is down: an error code (STORE_UNAVAILABLE, TIMEOUT...) or LAGGING'),
    message: s.optional(s.string()),
    projection: s.optional(s.string()),
    source: s.optional(s.string()),
    position: s.optional(s.nullable(s.string())),
    headPosition: s.optional(s.nullable(s.string())),
    lag: s.optional(s.nullable(projectionLagSchema)),
  })
  .named('HealthIndicator')
  .describe('One indicator (`store:<name>` or `projection:<name>@<source>`): `up` or `down`, with the details of its check');

/** {@link healthIndicatorSchema}'s type. */
export type HealthIndicator = Infer<typeof healthIndicatorSchema>;

const checkShape = {
  ok: s.boolean(),
  problem: s.optional(s.string()).describe('Why not, when not ok: an error code or LAGGING'),
  message: s.optional(s.string()),
};

/** One store's probe. */
export const readinessCheckSchema = s.object(checkShape).named('ReadinessCheck').describe('One check of the readiness report');

/** {@link readinessCheckSchema}'s type. */
export type ReadinessCheck = Infer<typeof readinessCheckSchema>;

/** Whether one projection in one source is fewer than maxLag events behind. */
export const projectionReadinessSchema = s
  .object({
    ...checkShape,
    projection: s.string().describe('The projection, or `*` when their status could not be read'),
    source: s.string(),
    position: s.nullable(s.string()),
    headPosition: s.nullable(s.string()),
    lag: s.nullable(projectionLagSchema),
  })
  .named('ProjectionReadiness')
  .describe('Whether one projection in one source is fewer than maxLag events behind');

/** {@link projectionReadinessSchema}'s type. */
export type ProjectionReadiness = Infer<typeof projectionReadinessSchema>;

/** `GET /ready` (200 and 503). */
export const readinessReportSchema = s
  .object({
    status: s.enum(['ok', 'error']).describe('`ok` (200) when every store answers and every projection is caught up; `error` (503) otherwise'),
    info: s.record(healthIndicatorSchema).describe('The indicators that are up'),
    error: s.record(healthIndicatorSchema).describe('The indicators that are down'),
    details: s.record(healthIndicatorSchema).describe('Every indicator'),
    stores: s.record(readinessCheckSchema).describe('Whether each store answered a cheap read'),
    projections: s.array(projectionReadinessSchema),
    maxLag: s.integer().describe('READY_MAX_PROJECTION_LAG'),
    auth: s
      .object({ mode: s.enum(AUTH_MODES), warning: s.optional(s.string()).describe('In the development mode: a warning') })
      .named('ReadinessAuth')
      .describe('How requests are authenticated'),
  })
  .named('ReadinessReport')
  .describe('Readiness in the @nestjs/terminus shape, with the same facts grouped by kind');

/** {@link readinessReportSchema}'s type. */
export type ReadinessReport = Infer<typeof readinessReportSchema>;
