import type { Infer } from './schema';
import { s } from './schema';
import { runViewSchema } from './run-view';

/** `POST /runs/{runId}/cancel` (200 cancelled; 202 a running run stops at its next step boundary). */
export const cancelRunAnswerSchema = s
  .object({ runId: s.string(), cancelRequested: s.literal(true), run: runViewSchema })
  .named('CancelRunAnswer')
  .describe('The cancel is recorded: the run as its own stream tells it (CANCELLED, or RUNNING with cancelRequested until its next step boundary)');

/** {@link cancelRunAnswerSchema}'s type. */
export type CancelRunAnswer = Infer<typeof cancelRunAnswerSchema>;
