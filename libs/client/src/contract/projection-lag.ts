import type { Infer } from './schema';
import { s } from './schema';

/** How far a projection is behind its source's head, in projected (run and audit) events. */
export const projectionLagSchema = s
  .object({
    events: s.integer().describe('Events after the checkpoint, counted up to the cap'),
    atLeast: s.boolean().describe('True when counting stopped at the cap: the lag is at least `events`'),
  })
  .named('ProjectionLag')
  .describe("How far a projection is behind its source's head, in projected (run and audit) events");

/** {@link projectionLagSchema}'s type. */
export type ProjectionLag = Infer<typeof projectionLagSchema>;
