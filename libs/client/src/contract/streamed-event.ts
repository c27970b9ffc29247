import type { Infer } from './schema';
import { s } from './schema';

/** An event of `GET /runs/{runId}/events` and `GET /events`: the JSON of an SSE frame's `data:`. */
export const streamedEventSchema = s
  .object({
    type: s.string().describe('The event type (`RunRequested`, `StepStarted`...)'),
    streamName: s.string().describe('`run-<runId>`'),
    revision: s.integer().describe('The event\'s 0-based number in its stream'),
    position: s.string().describe("The event's position in the store (opaque, `<commit>:<prepare>`): also the frame's SSE `id`"),
    data: s.unknown().describe("The event's payload, in the current schema version of its type"),
    metadata: s.unknown(),
    created: s.string().describe('When the store recorded it, ISO 8601'),
  })
  .named('StreamedEvent')
  .describe('One recorded event, as the event streams send it');

/** {@link streamedEventSchema}'s type. */
export type StreamedEvent = Infer<typeof streamedEventSchema>;

/** The `data:` of an `event: error` frame: the stream ends after it (reconnect with `Last-Event-ID`). */
export const streamErrorSchema = s.object({ code: s.string(), message: s.string() }).named('StreamError').describe('Why the event stream ends');

/** {@link streamErrorSchema}'s type. */
export type StreamError = Infer<typeof streamErrorSchema>;
