import type { Infer } from './schema';
import { s } from './schema';
import { runViewSchema } from './run-view';
import { RUN_STATUSES } from './vocabulary';

/** `POST /runs/{runId}/approval` and `POST /runs/{runId}/input` (200): the run after the decision or the input. */
export const runResumeAnswerSchema = s
  .object({
    runId: s.string(),
    status: s.enum(RUN_STATUSES).describe('`run.status`, repeated: `QUEUED` (a worker resumes it) or `FAILED` (denied with endRun)'),
    run: runViewSchema,
    auditStatement: s
      .enum(['recorded', 'pending'])
      .describe("`recorded`: the statement is in the run's audit chain. `pending`: the decision took effect, its statement is not stored yet; do not send it again"),
  })
  .named('RunResumeAnswer')
  .describe('The decision or the input is recorded: the run as its own stream tells it');

/** {@link runResumeAnswerSchema}'s type. */
export type RunResumeAnswer = Infer<typeof runResumeAnswerSchema>;
