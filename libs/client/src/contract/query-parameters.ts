import type { Infer } from './schema';
import { s } from './schema';
import { RUN_ID_PATTERN } from './request-bodies';
import { APPROVAL_STATES, RUN_STATUSES, TERMINATION_REASONS } from './vocabulary';

const instant = () => s.optional(s.string()).describe('ms since the epoch or an ISO 8601 date-time');

const pageShape = {
  since: instant().describe('Requested at or after: ms since the epoch or an ISO 8601 date-time'),
  until: instant().describe('Requested before: ms since the epoch or an ISO 8601 date-time'),
  limit: s.optional(s.integer({ minimum: 1, maximum: 1000 })).describe('Default 50'),
  cursor: s.optional(s.string({ minLength: 1, maxLength: 1024 })).describe('The nextCursor of the previous page'),
};

/** The query of `GET /runs` (unknown parameters are refused). */
export const listRunsQuerySchema = s.object({
  status: s.optional(s.enum(RUN_STATUSES)),
  reason: s.optional(s.enum(TERMINATION_REASONS)),
  agent: s.optional(s.string({ minLength: 1, maxLength: 128 })),
  ...pageShape,
});

/** {@link listRunsQuerySchema}'s type (as sent: times as text). */
export type ListRunsQuery = Infer<typeof listRunsQuerySchema>;

/** The query of `GET /approvals`. */
export const listApprovalsQuerySchema = s.object({
  state: s.optional(s.enum(APPROVAL_STATES)).describe('pending: the runs waiting for a decision now; default every state'),
  agent: s.optional(s.string({ minLength: 1, maxLength: 128 })),
  runId: s.optional(s.string({ pattern: RUN_ID_PATTERN })),
  ...pageShape,
});

/** {@link listApprovalsQuerySchema}'s type. */
export type ListApprovalsQuery = Infer<typeof listApprovalsQuerySchema>;

/** The query of `GET /audit/review`. */
export const auditReviewQuerySchema = s.object({
  runId: s.optional(s.string({ pattern: RUN_ID_PATTERN })).describe('Only this run'),
  limit: s.optional(s.integer({ minimum: 1, maximum: 100_000 })).describe('Most rows in each list; default 1000'),
  full: s.optional(s.boolean()).describe("true: verify every run from both stores' first event, whatever the checkpoint; default false"),
});

/** {@link auditReviewQuerySchema}'s type. */
export type AuditReviewQuery = Infer<typeof auditReviewQuerySchema>;

/** The query of `GET /audit/chains`. */
export const auditChainsQuerySchema = s.object({
  runId: s.optional(s.string({ pattern: RUN_ID_PATTERN })).describe("Only this run's audit chain; default every run's"),
});

/** {@link auditChainsQuerySchema}'s type. */
export type AuditChainsQuery = Infer<typeof auditChainsQuerySchema>;

/** The query of the event streams (`GET /events`, `GET /runs/{runId}/events`). */
export const eventStreamQuerySchema = s.object({
  after: s.optional(s.string({ minLength: 1, maxLength: 64 })).describe('Resume after this position (an SSE id); the Last-Event-ID header wins over it'),
  from: s.optional(s.enum(['start', 'now'])).describe('start (default): history then live; now: live only'),
});

/** {@link eventStreamQuerySchema}'s type. */
export type EventStreamQuery = Infer<typeof eventStreamQuerySchema>;
