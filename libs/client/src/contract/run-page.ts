import type { Infer } from './schema';
import { s } from './schema';
import { runStatusRowSchema } from './run-status-row';

/** A page of runs (`GET /runs`), newest first (requestedAt, then run id). */
export const runPageSchema = s
  .object({
    runs: s.array(runStatusRowSchema),
    nextCursor: s.nullable(s.string()).describe('Pass it as `cursor` for the next page; null on the last page'),
  })
  .named('RunPage')
  .describe('A page of runs, newest first (requestedAt, then run id)');

/** {@link runPageSchema}'s type. */
export type RunPage = Infer<typeof runPageSchema>;
