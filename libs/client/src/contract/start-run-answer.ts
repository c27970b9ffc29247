import type { Infer } from './schema';
import { s } from './schema';
import { runViewSchema } from './run-view';
import { RUN_STATUSES } from './vocabulary';

/** How the segment of an interactive start ended. */
export const SEGMENT_ENDS = ['settled', 'requeued', 'waiting', 'leaseLost', 'abandoned'] as const;

/** `POST /runs`, queued (202): the run is recorded; or, `replayed: true`, the run of a repeated idempotency key. */
export const startRunAcceptedSchema = s
  .object({
    runId: s.string(),
    mode: s.literal('queued'),
    status: s.enum(RUN_STATUSES).describe("`QUEUED` for a new run; a replay gives the run's current status"),
    replayed: s.boolean().describe('Whether the idempotency key named an existing run (nothing new was started)'),
  })
  .named('StartRunAccepted')
  .describe('A queued run is recorded (or, with `replayed: true`, the run of a repeated idempotency key)');

/** {@link startRunAcceptedSchema}'s type. */
export type StartRunAccepted = Infer<typeof startRunAcceptedSchema>;

/** `POST /runs`, interactive (200): the run, executed during the request, as its own stream tells it. */
export const startRunInteractiveSchema = s
  .object({
    runId: s.string(),
    mode: s.literal('interactive'),
    replayed: s.boolean().describe('Whether the idempotency key named an existing run (nothing was executed)'),
    segment: s
      .nullable(s.enum(SEGMENT_ENDS))
      .describe("How the request's segment ended (`waiting`: the run waits for a person; `leaseLost`, `abandoned`: the run may still be RUNNING); null for a replay"),
    run: runViewSchema,
  })
  .named('StartRunInteractive')
  .describe('An interactive run, executed during the request: the run as its own stream tells it');

/** {@link startRunInteractiveSchema}'s type. */
export type StartRunInteractive = Infer<typeof startRunInteractiveSchema>;

/** Either answer of `POST /runs`. */
export type StartRunAnswer = StartRunAccepted | StartRunInteractive;
