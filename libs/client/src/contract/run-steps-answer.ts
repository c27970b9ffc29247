import type { Infer } from './schema';
import { s } from './schema';
import { stepRowSchema } from './step-row';

/** `GET /runs/{runId}/steps`: a run's steps, by round, then call. */
export const runStepsAnswerSchema = s
  .object({ runId: s.string(), steps: s.array(stepRowSchema) })
  .named('RunStepsAnswer')
  .describe("A run's steps, by round, then call");

/** {@link runStepsAnswerSchema}'s type. */
export type RunStepsAnswer = Infer<typeof runStepsAnswerSchema>;
