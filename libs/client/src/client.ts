import type { AgentsAnswer } from './contract/agents-answer';
import type { ApprovalPage, ApprovalRow } from './contract/approval-page';
import type { AuditReviewAnswer } from './contract/audit-review-answer';
import type { AuditStoreVerdict } from './contract/audit-store-verdict';
import type { CancelRunAnswer } from './contract/cancel-run-answer';
import type { HealthReport } from './contract/health-report';
import type { MeAnswer } from './contract/me-answer';
import type { OpenApiDocument } from './contract/openapi-document';
import type { ProjectionsAnswer } from './contract/projections-answer';
import type { AuditChainsQuery, AuditReviewQuery, ListApprovalsQuery, ListRunsQuery } from './contract/query-parameters';
import type { ReadinessReport } from './contract/readiness-report';
import type { RebuildAnswer } from './contract/rebuild-answer';
import type { CancelRunRequest, DecideApprovalRequest, RequeueRunRequest, StartRebuildRequest, StartRunRequest } from './contract/request-bodies';
import type { RequeueRunAccepted } from './contract/requeue-run-accepted';
import type { RunPage } from './contract/run-page';
import type { RunResumeAnswer } from './contract/run-resume-answer';
import type { RunStatusRow } from './contract/run-status-row';
import type { RunStepsAnswer } from './contract/run-steps-answer';
import type { StartRunAccepted, StartRunAnswer, StartRunInteractive } from './contract/start-run-answer';
import type { StreamedEvent } from './contract/streamed-event';
import { isTerminalRunEvent } from './contract/vocabulary';
import type { EventStreamOptions, FollowRunOptions } from './events/event-stream';
import { eventStream } from './events/event-stream';
import type { Instant } from './http/query-string';
import { pathWith, queryString } from './http/query-string';
import type { OutgoingRequest, RequestOptions, TransportOptions } from './http/transport';
import { HttpTransport } from './http/transport';
import type { WaitForSettledOptions } from './runs/wait-for-settled';
import { waitForSettled } from './runs/wait-for-settled';

/** How to reach the service: `baseUrl`, and optionally `apiKey`, `fetch`, `headers`, `timeoutMs`. */
export type AgentLedgerClientOptions = TransportOptions;

/** The filters and page of `listRuns` (times as ms since the epoch, ISO 8601 text, or a `Date`). */
export type ListRunsOptions = Omit<ListRunsQuery, 'since' | 'until'> & { readonly since?: Instant; readonly until?: Instant };

/** The filters and page of `listApprovals`. */
export type ListApprovalsOptions = Omit<ListApprovalsQuery, 'since' | 'until'> & { readonly since?: Instant; readonly until?: Instant };

/**
 * The body of `startRun`: {@link StartRunRequest}, with `input` any value
 * that serialises to JSON (an object typed by an `interface` included, which
 * TypeScript does not let pass as a `JsonValue`); the service refuses what
 * is not JSON (`400 INVALID_FIELD`, `field: input`).
 */
export type StartRunParams = Omit<StartRunRequest, 'input'> & { readonly input: unknown };
/** `startRun` of a queued run (the default). */
export type StartQueuedRunRequest = StartRunParams & { readonly mode?: 'queued' };
/** `startRun` of an interactive run. */
export type StartInteractiveRunRequest = StartRunParams & { readonly mode: 'interactive' };

/**
 * A typed client of the agent-ledger HTTP API, for Node 20 and browsers
 * (the global `fetch`; no dependency). One method per route; every answer
 * typed from the API's contract (`contract/`). Errors: the service's error
 * answers reject with {@link AgentLedgerApiError} (`status`, `code`, `field`,
 * `rule`), no answer at all with {@link AgentLedgerConnectionError}.
 *
 * @example
 * const client = new AgentLedgerClient({ baseUrl: 'http://127.0.0.1:3000', apiKey: process.env.AGENT_LEDGER_API_KEY });
 * const { runId } = await client.startRun({ agent: 'file-clerk', input: 'Write the report', idempotencyKey: 'report-2026-12-01' });
 * const run = await client.waitForSettled(runId, { timeoutMs: 60_000 });
 */
export class AgentLedgerClient {
  private readonly http: HttpTransport;

  constructor(options: AgentLedgerClientOptions) {
    this.http = new HttpTransport(options);
  }

  /**
   * `POST /runs`: starts a run. Queued (the default): 202, the run is
   * recorded and a worker executes it. Interactive: executed during the
   * request, the answer carries the run as its stream tells it. With
   * `idempotencyKey` a repeat answers the same run (`replayed: true`).
   */
  startRun(request: StartQueuedRunRequest, options?: RequestOptions): Promise<StartRunAccepted>;
  startRun(request: StartInteractiveRunRequest, options?: RequestOptions): Promise<StartRunInteractive>;
  startRun(request: StartRunParams, options?: RequestOptions): Promise<StartRunAnswer>;
  async startRun(request: StartRunParams, options: RequestOptions = {}): Promise<StartRunAnswer> {
    return this.json<StartRunAnswer>({ method: 'POST', path: '/runs', body: request, ...options }, [200, 202]);
  }

  /** `GET /runs/{runId}`: one run, from the run-status read model (404 `RUN_NOT_FOUND` for a few ms right after a queued start). */
  getRun(runId: string, options: RequestOptions = {}): Promise<RunStatusRow> {
    return this.json({ method: 'GET', path: runPath('/runs/{runId}', runId), ...options });
  }

  /** `GET /runs`: a page of runs, newest first; pass `nextCursor` back as `cursor` for the next page. */
  listRuns(query: ListRunsOptions = {}, options: RequestOptions = {}): Promise<RunPage> {
    return this.json({ method: 'GET', path: `/runs${queryString(query)}`, ...options });
  }

  /** Every run that `listRuns(query)` pages through, page after page (`query.limit` is the page size). */
  async *iterateRuns(query: Omit<ListRunsOptions, 'cursor'> = {}, options: RequestOptions = {}): AsyncGenerator<RunStatusRow, void, undefined> {
    let cursor: string | null | undefined;
    do {
      const page = await this.listRuns({ ...query, ...(cursor == null ? {} : { cursor }) }, options);
      yield* page.runs;
      cursor = page.nextCursor;
    } while (cursor !== null);
  }

  /** `GET /runs/{runId}/steps`: a run's steps, from the steps read model, by round then call. */
  getSteps(runId: string, options: RequestOptions = {}): Promise<RunStepsAnswer> {
    return this.json({ method: 'GET', path: runPath('/runs/{runId}/steps', runId), ...options });
  }

  /** `POST /runs/{runId}/cancel`: cancels a run (a running one stops at its next step boundary: `run.status` still `RUNNING`, `cancelRequested` true). */
  cancelRun(runId: string, request: CancelRunRequest = {}, options: RequestOptions = {}): Promise<CancelRunAnswer> {
    return this.json({ method: 'POST', path: runPath('/runs/{runId}/cancel', runId), ...bodyOf(request), ...options }, [200, 202]);
  }

  /** `POST /runs/{runId}/requeue`: requeues a dead-lettered run as a continuation run. */
  requeueRun(runId: string, request: RequeueRunRequest = {}, options: RequestOptions = {}): Promise<RequeueRunAccepted> {
    return this.json({ method: 'POST', path: runPath('/runs/{runId}/requeue', runId), ...bodyOf(request), ...options }, [202]);
  }

  /** `POST /runs/{runId}/approval`: approves or denies the calls a run waits for (`WAITING_FOR_APPROVAL`). */
  decideApproval(runId: string, request: DecideApprovalRequest, options: RequestOptions = {}): Promise<RunResumeAnswer> {
    return this.json({ method: 'POST', path: runPath('/runs/{runId}/approval', runId), body: request, ...options });
  }

  /** `decideApproval` with `decision: 'approve'`. */
  approve(runId: string, request: Omit<DecideApprovalRequest, 'decision'> = {}, options: RequestOptions = {}): Promise<RunResumeAnswer> {
    return this.decideApproval(runId, { ...request, decision: 'approve' }, options);
  }

  /** `decideApproval` with `decision: 'deny'`. */
  deny(runId: string, request: Omit<DecideApprovalRequest, 'decision'> = {}, options: RequestOptions = {}): Promise<RunResumeAnswer> {
    return this.decideApproval(runId, { ...request, decision: 'deny' }, options);
  }

  /** `POST /runs/{runId}/input`: answers a run whose tool asked for input (`WAITING_FOR_INPUT`); `input` is any value that serialises to JSON, `null` included. */
  submitInput(runId: string, input: unknown, options: RequestOptions = {}): Promise<RunResumeAnswer> {
    return this.json({ method: 'POST', path: runPath('/runs/{runId}/input', runId), body: { input }, ...options });
  }

  /** `GET /approvals`: a page of requests for approval, newest first (`state: 'pending'`: the runs waiting for a decision now). */
  listApprovals(query: ListApprovalsOptions = {}, options: RequestOptions = {}): Promise<ApprovalPage> {
    return this.json({ method: 'GET', path: `/approvals${queryString(query)}`, ...options });
  }

  /** Every request for approval that `listApprovals(query)` pages through. */
  async *iterateApprovals(query: Omit<ListApprovalsOptions, 'cursor'> = {}, options: RequestOptions = {}): AsyncGenerator<ApprovalRow, void, undefined> {
    let cursor: string | null | undefined;
    do {
      const page = await this.listApprovals({ ...query, ...(cursor == null ? {} : { cursor }) }, options);
      yield* page.approvals;
      cursor = page.nextCursor;
    } while (cursor !== null);
  }

  /** `GET /audit/review`: the audit-review report and the integrity verdict read from the stores. */
  auditReview(query: AuditReviewQuery = {}, options: RequestOptions = {}): Promise<AuditReviewAnswer> {
    return this.json({ method: 'GET', path: `/audit/review${queryString(query)}`, ...options });
  }

  /** `GET /audit/chains`: the integrity verdict of a full verification (every run, or `runId`'s). */
  auditChains(query: AuditChainsQuery = {}, options: RequestOptions = {}): Promise<AuditStoreVerdict> {
    return this.json({ method: 'GET', path: `/audit/chains${queryString(query)}`, ...options });
  }

  /** `GET /agents`: the configured agents the key may use, with their tools' effects and approvals. */
  listAgents(options: RequestOptions = {}): Promise<AgentsAnswer> {
    return this.json({ method: 'GET', path: '/agents', ...options });
  }

  /** `GET /me`: what the caller's key may do. */
  me(options: RequestOptions = {}): Promise<MeAnswer> {
    return this.json({ method: 'GET', path: '/me', ...options });
  }

  /** `GET /projections`: each projection's checkpoint, head and lag. */
  projections(options: RequestOptions = {}): Promise<ProjectionsAnswer> {
    return this.json({ method: 'GET', path: '/projections', ...options });
  }

  /** `POST /projections/rebuild`: starts a rebuild of the read models in the service's process (every projection, or `projection`). */
  startRebuild(request: StartRebuildRequest = {}, options: RequestOptions = {}): Promise<RebuildAnswer> {
    return this.json({ method: 'POST', path: '/projections/rebuild', ...bodyOf(request), ...options }, [202]);
  }

  /** `GET /projections/rebuild`: that rebuild: idle, running (with progress), succeeded or failed. */
  rebuildStatus(options: RequestOptions = {}): Promise<RebuildAnswer> {
    return this.json({ method: 'GET', path: '/projections/rebuild', ...options });
  }

  /** `GET /health`: liveness (public). */
  health(options: RequestOptions = {}): Promise<HealthReport> {
    return this.json({ method: 'GET', path: '/health', ...options });
  }

  /** `GET /ready`: readiness (public). Resolves for both answers: `status: 'ok'` (200) and `status: 'error'` (503). */
  ready(options: RequestOptions = {}): Promise<ReadinessReport> {
    return this.json({ method: 'GET', path: '/ready', ...options }, [200, 503]);
  }

  /** `GET /openapi.json`: the OpenAPI 3 document of the API. */
  openApiDocument(options: RequestOptions = {}): Promise<OpenApiDocument> {
    return this.json({ method: 'GET', path: '/openapi.json', ...options });
  }

  /** `GET /metrics`: the Prometheus text. */
  async metrics(options: RequestOptions = {}): Promise<string> {
    return (await this.http.text({ method: 'GET', path: '/metrics', ...options })).body;
  }

  /**
   * `GET /runs/{runId}/events`: the run's events, history then live, as an
   * async iterator that resumes after a dropped connection without loss or
   * duplicate (see {@link EventStreamOptions}). It never ends on its own:
   * events may follow a settlement (`AuditGapDetected`,
   * `RunRequeuedByOperator`). To follow a run to its end, use
   * {@link AgentLedgerClient.followRun}.
   */
  runEvents(runId: string, options: EventStreamOptions = {}): AsyncIterableIterator<StreamedEvent> {
    return eventStream(this.http, runPath('/runs/{runId}/events', runId), options);
  }

  /**
   * Follows one run to its end: `GET /runs/{runId}/events` from the run's
   * first event, history then live, and the iteration **ends** after the
   * event that settles the run (`RunCompleted`, `RunFailed` or
   * `RunCancelled`, yielded last; its connection is closed then). A run
   * already settled yields its whole history and ends; a run waiting for a
   * person (`WAITING_FOR_APPROVAL`, `WAITING_FOR_INPUT`) keeps the iteration
   * going until someone decides, answers or cancels, and the run settles.
   *
   * It resumes after a dropped connection as {@link AgentLedgerClient.runEvents}
   * does (`Last-Event-ID` of the last event yielded: no loss, no duplicate;
   * `reconnect`, `onConnection`), and `break`, `return()` or `signal` end it
   * early, quietly, closing the connection. It takes neither `from` nor
   * `lastEventId` (they would skip the history that says whether the run is
   * settled): to resume in a later process after a known event, use
   * `runEvents(runId, { lastEventId })` and stop at the terminal event
   * yourself. What may follow the settlement (`AuditGapDetected`,
   * `RunRequeuedByOperator`) is only in `runEvents`; a continuation run after
   * a requeue is another run (`continuedAs` of {@link RunStatusRow}).
   *
   * @throws TypeError at once for an empty `runId`, or `from` or `lastEventId` in `options`
   * @example
   * for await (const event of client.followRun(runId)) console.log(event.type);   // ..., RunCompleted; then the loop ends
   */
  followRun(runId: string, options: FollowRunOptions = {}): AsyncIterableIterator<StreamedEvent> {
    const path = runPath('/runs/{runId}/events', runId);
    if (options === null || typeof options !== 'object') throw new TypeError(`followRun's options must be an object (got ${options === null ? 'null' : typeof options})`);
    for (const option of ['from', 'lastEventId'] as const) {
      if ((options as EventStreamOptions)[option] !== undefined) {
        throw new TypeError(
          `followRun does not take ${option}: it reads the run from its first event, whose history says whether the run has settled; ` +
            'to resume after a known event, use runEvents(runId, { lastEventId }) and stop at RunCompleted, RunFailed or RunCancelled',
        );
      }
    }
    return eventStream(this.http, path, options, { endAfter: isTerminalRunEvent });
  }

  /** `GET /events`: every run's events (a key for every agent), history then live (`from: 'now'`: live only). */
  events(options: EventStreamOptions = {}): AsyncIterableIterator<StreamedEvent> {
    return eventStream(this.http, '/events', options);
  }

  /**
   * Resolves with the run once it is settled: terminal (`COMPLETED`,
   * `FAILED`, `CANCELLED`) or, by default, waiting for a person
   * (`WAITING_FOR_APPROVAL`, `WAITING_FOR_INPUT`; `settleOn: 'terminal'` to
   * wait past them). Rejects with {@link AgentLedgerWaitError} on timeout
   * (default 60 s) or abort.
   */
  waitForSettled(runId: string, options: WaitForSettledOptions = {}): Promise<RunStatusRow> {
    return waitForSettled((id, requestOptions) => this.getRun(id, requestOptions), runId, options);
  }

  private async json<T>(request: OutgoingRequest, okStatuses: readonly number[] = [200]): Promise<T> {
    return (await this.http.json<T>(request, okStatuses)).body;
  }
}

/** Creates an {@link AgentLedgerClient}. */
export function createClient(options: AgentLedgerClientOptions): AgentLedgerClient {
  return new AgentLedgerClient(options);
}

function runPath(template: string, runId: string): string {
  if (typeof runId !== 'string' || runId === '') throw new TypeError(`runId must be a non-empty string (got ${JSON.stringify(runId)})`);
  return pathWith(template, { runId });
}

/** A body that is optional: sent only when it sets a field (an empty body is the route's default). */
function bodyOf(request: object): { body?: unknown } {
  return Object.values(request).some((value) => value !== undefined) ? { body: request } : {};
}

