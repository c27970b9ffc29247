import type { Infer } from './schema';
import { s } from './schema';

/** `POST /runs/{runId}/requeue` (202): the dead-lettered run stays FAILED; its continuation run is queued. */
export const requeueRunAcceptedSchema = s
  .object({
    runId: s.string().describe('The dead-lettered run'),
    continuationRunId: s.string().describe('The continuation run, queued'),
  })
  .named('RequeueRunAccepted')
  .describe('The dead-lettered run stays FAILED; its continuation run is queued');

/** {@link requeueRunAcceptedSchema}'s type. */
export type RequeueRunAccepted = Infer<typeof requeueRunAcceptedSchema>;
