import type { Infer } from './schema';
import { s } from './schema';
import { PROJECTION_NAMES, REBUILD_PHASES, REBUILD_STATES } from './vocabulary';

/** The last progress record of a rebuild. */
export const rebuildProgressSchema = s
  .object({
    phase: s.enum(REBUILD_PHASES),
    projections: s.array(s.enum(PROJECTION_NAMES)),
    source: s.nullable(s.string()).describe('The source being replayed; null at the start and at the swap'),
    eventsDone: s.integer(),
    eventsApplied: s.integer(),
    fractionDone: s.nullable(s.number({ minimum: 0, maximum: 1 })).describe('Estimated fraction done; null when the sources are empty'),
    eventsTotalEstimate: s.nullable(s.integer()),
    eventsPerSecond: s.number(),
    elapsedMs: s.integer(),
    etaMs: s.nullable(s.integer()).describe('Estimated time left; null while unknown'),
  })
  .named('RebuildProgress')
  .describe('The last progress record of a rebuild');

/** {@link rebuildProgressSchema}'s type. */
export type RebuildProgress = Infer<typeof rebuildProgressSchema>;

/** What a finished rebuild did. */
export const rebuildResultSchema = s
  .object({
    projections: s.array(s.enum(PROJECTION_NAMES)),
    eventsDone: s.integer(),
    eventsApplied: s.integer(),
    elapsedMs: s.integer(),
    eventsPerSecond: s.number(),
  })
  .named('RebuildResult')
  .describe('What a finished rebuild did');

/** {@link rebuildResultSchema}'s type. */
export type RebuildResult = Infer<typeof rebuildResultSchema>;

/** The rebuild of a service process: the running one, or the last one (idle until one is requested). */
export const rebuildStateSchema = s
  .object({
    state: s.enum(REBUILD_STATES),
    projections: s.nullable(s.array(s.enum(PROJECTION_NAMES))).describe('The projections rebuilt; null while idle'),
    requestedBy: s.nullable(s.string()).describe("Who asked for it: the label of the caller's principal; null while idle"),
    startedAt: s.nullable(s.integer()),
    finishedAt: s.nullable(s.integer()),
    progress: s.nullable(rebuildProgressSchema).describe('The last progress record; null before the first'),
    result: s.nullable(rebuildResultSchema).describe('What it did, once succeeded'),
    error: s.nullable(s.string()).describe("Why it failed (the error's message)"),
  })
  .named('RebuildState')
  .describe('The rebuild of this process: the running one, or the last one (idle until one is requested)');

/** {@link rebuildStateSchema}'s type. */
export type RebuildState = Infer<typeof rebuildStateSchema>;

/** A rebuild that was swapped in, as the read models' file records it: by the service (over HTTP) or by the CLI. */
export const rebuildRecordSchema = s
  .object({
    projections: s.array(s.enum(PROJECTION_NAMES)),
    requestedBy: s.nullable(s.string()).describe("Who asked for it: the caller's principal over HTTP (`key:<id>`, `development`), `cli:<user>@<host>` for the CLI's; null when nobody was named"),
    startedAt: s.integer(),
    finishedAt: s.integer().describe('When its tables were swapped in'),
    eventsDone: s.integer(),
    eventsApplied: s.integer(),
    elapsedMs: s.integer(),
  })
  .named('RebuildRecord')
  .describe("A rebuild that was swapped in, as the read models' file records it: by the service (over HTTP) or by the CLI");

/** {@link rebuildRecordSchema}'s type. */
export type RebuildRecord = Infer<typeof rebuildRecordSchema>;

/** `POST` and `GET /projections/rebuild`. */
export const rebuildAnswerSchema = s
  .object({
    rebuild: rebuildStateSchema,
    history: s.array(rebuildRecordSchema).describe("The last rebuilds swapped into the read models' file, newest first (at most 10), whichever process ran them: this service, another, or the CLI"),
  })
  .named('RebuildAnswer')
  .describe("The rebuild of this process, and the last rebuilds recorded in the read models' file");

/** {@link rebuildAnswerSchema}'s type. */
export type RebuildAnswer = Infer<typeof rebuildAnswerSchema>;
