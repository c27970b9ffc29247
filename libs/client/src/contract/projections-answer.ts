import type { Infer } from './schema';
import { s } from './schema';
import { projectionLagSchema } from './projection-lag';
import { PROJECTION_NAMES } from './vocabulary';

/** The state of one projection in one source: checkpoint, head, lag. */
export const projectionStatusSchema = s
  .object({
    projection: s.enum(PROJECTION_NAMES),
    source: s.string().describe('`runs` (the run store), or `audit` when the audit streams have a store of their own'),
    position: s.nullable(s.string()).describe('The last processed position in the source; null if nothing yet'),
    eventsApplied: s.integer(),
    updatedAt: s.nullable(s.integer()).describe('When the checkpoint was last written (ms since the epoch); null if never'),
    headPosition: s.nullable(s.string()).describe("The position of the source's last run / audit event; null when unknown"),
    caughtUp: s.nullable(s.boolean()).describe('Whether the checkpoint is at the head; null when the head is unknown'),
    rebuilding: s.boolean().describe('Whether rebuild tables of the projection exist'),
    lag: s.nullable(projectionLagSchema).describe("Null when the source's head is unknown"),
  })
  .named('ProjectionStatus')
  .describe('The state of one projection in one source: checkpoint, head, lag');

/** {@link projectionStatusSchema}'s type. */
export type ProjectionStatus = Infer<typeof projectionStatusSchema>;

/** What one source's projection runner did in this process. */
export const projectionRunnerStatsSchema = s
  .object({
    running: s.boolean(),
    batches: s.integer(),
    eventsRead: s.integer(),
    eventsApplied: s.integer(),
    largestBatch: s.integer(),
    resubscriptions: s.integer(),
    failures: s.integer(),
    lastError: s.nullable(s.string()),
    position: s.nullable(s.string()),
  })
  .named('ProjectionRunnerStats')
  .describe("What one source's projection runner did in this process");

/** {@link projectionRunnerStatsSchema}'s type. */
export type ProjectionRunnerStats = Infer<typeof projectionRunnerStatsSchema>;

/** `GET /projections`: each projection's checkpoint, head and lag, and this process's runners. */
export const projectionsAnswerSchema = s
  .object({
    projections: s.array(projectionStatusSchema).describe('Every projection in every source'),
    runners: s.record(projectionRunnerStatsSchema).describe("This process's runners, by source name (`runs`, `audit`)"),
  })
  .named('ProjectionsAnswer')
  .describe("Each projection's checkpoint, head and lag, and this process's runners");

/** {@link projectionsAnswerSchema}'s type. */
export type ProjectionsAnswer = Infer<typeof projectionsAnswerSchema>;
