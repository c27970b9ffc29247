import { InvalidFieldError } from '../errors/invalid-field.error';
import { RunAlreadyExistsError, RunNotClaimableError, RunNotFoundError } from '../errors/run-rule-violations';
import { apiKeyPrincipal } from '../principal/principal';
import { RunHistory } from '../testing/run-history';
import { runDeciderSpecification } from '../testing/run-decider-specification';
import { createRunDecider } from './run-decider';

const T0 = Date.UTC(2026, 0, 1);
const SECOND = 1000;
const WORKER = 'worker:host-a:101';
const STARTER = apiKeyPrincipal('ops');
const decider = createRunDecider();
const spec = runDeciderSpecification(decider);
const history = () => new RunHistory(decider);

describe('run decider: requesting a run', () => {
  it('records RunRequested with the default round limit', () => {
    spec
      .given([])
      .when({ type: 'RequestRun', data: { runId: 'run-1', agent: 'demo-agent', input: { task: 'x' }, mode: 'queued', requestedBy: STARTER }, metadata: { now: T0 } })
      .then([
        {
          type: 'RunRequested',
          data: { runId: 'run-1', agent: 'demo-agent', input: { task: 'x' }, mode: 'queued', maxIterations: 20, requestedAt: T0, requestedBy: STARTER },
        },
      ]);
  });

  it('refuses a second request for the same run id', () => {
    spec
      .given(history().request(T0).events)
      .when({ type: 'RequestRun', data: { runId: 'run-1', agent: 'demo-agent', input: null, mode: 'queued', requestedBy: STARTER }, metadata: { now: T0 } })
      .thenRejects(RunAlreadyExistsError, { runId: 'run-1', code: 'RUN_ALREADY_EXISTS' });
  });

  it.each([
    ['data.runId', { runId: 'has/slash' }],
    ['data.runId', { runId: '' }],
    ['data.agent', { agent: '  ' }],
    ['data.mode', { mode: 'batch' }],
    ['data.maxIterations', { maxIterations: 21 }],
    ['data.maxIterations', { maxIterations: 0 }],
    ['data.requestedBy', { requestedBy: undefined }],
    ['data.requestedBy', { requestedBy: 'alice' }],
    ['data.requestedBy.kind', { requestedBy: { kind: 'unverified', name: 'alice' } }],
    ['data.requestedBy.id', { requestedBy: { kind: 'apiKey', id: ' ' } }],
  ])('refuses a request whose %s is malformed, naming the field', (field, override) => {
    const data = { runId: 'run-1', agent: 'demo-agent', input: {}, mode: 'queued', requestedBy: STARTER, ...override };
    spec
      .given([])
      .when({ type: 'RequestRun', data: data as never, metadata: { now: T0 } })
      .thenRejects(InvalidFieldError, { field });
  });

  it('refuses a command whose time is not epoch milliseconds', () => {
    spec
      .given([])
      .when({ type: 'RequestRun', data: { runId: 'run-1', agent: 'a', input: {}, mode: 'queued', requestedBy: STARTER }, metadata: { now: Number.NaN } })
      .thenRejects(InvalidFieldError, { field: 'metadata.now' });
  });
});

describe('run decider: claiming', () => {
  it('claims a queued, due run with a lease of LEASE_SECONDS', () => {
    spec
      .given(history().request(T0).events)
      .when({ type: 'ClaimRun', data: { runId: 'run-1', owner: WORKER }, metadata: { now: T0 + SECOND } })
      .then([
        {
          type: 'RunClaimed',
          data: { runId: 'run-1', owner: WORKER, attempt: 1, leaseExpiresAt: T0 + SECOND + 900 * SECOND, claimedAt: T0 + SECOND },
        },
      ]);
  });

  it('uses the lease length of the operator policy', () => {
    const short = runDeciderSpecification(createRunDecider({ leaseSeconds: 5 }));
    const { decision } = short
      .given(history().request(T0).events)
      .when({ type: 'ClaimRun', data: { runId: 'run-1', owner: WORKER }, metadata: { now: T0 } });
    expect(decision).toMatchObject({ kind: 'accepted', events: [{ data: { leaseExpiresAt: T0 + 5 * SECOND } }] });
  });

  it('refuses a claim of a run that is already running (the claim decides between duplicate wake-ups)', () => {
    spec
      .given(history().request(T0).claim(WORKER, T0).events)
      .when({ type: 'ClaimRun', data: { runId: 'run-1', owner: 'worker:host-b:202' }, metadata: { now: T0 + SECOND } })
      .thenRejects(RunNotClaimableError, { why: 'notQueued', status: 'RUNNING' });
  });

  it('refuses a claim before a retry is due', () => {
    const retried = history()
      .request(T0)
      .claim(WORKER, T0)
      .fail({ owner: WORKER, attempt: 1 }, { failureClass: 'serverError', message: '502' }, T0 + SECOND);
    spec
      .given(retried.events)
      .when({ type: 'ClaimRun', data: { runId: 'run-1', owner: WORKER }, metadata: { now: T0 + 30 * SECOND } })
      .thenRejects(RunNotClaimableError, { why: 'notDue', notBefore: T0 + 31 * SECOND });
    spec
      .given(retried.events)
      .when({ type: 'ClaimRun', data: { runId: 'run-1', owner: WORKER }, metadata: { now: T0 + 31 * SECOND } })
      .then([
        {
          type: 'RunClaimed',
          data: { runId: 'run-1', owner: WORKER, attempt: 2, leaseExpiresAt: T0 + 931 * SECOND, claimedAt: T0 + 31 * SECOND },
        },
      ]);
  });

  it('lets only a worker claim a queued run and only an interactive segment claim an interactive run', () => {
    spec
      .given(history().request(T0, 'interactive').events)
      .when({ type: 'ClaimRun', data: { runId: 'run-1', owner: WORKER }, metadata: { now: T0 } })
      .thenRejects(RunNotClaimableError, { why: 'wrongSegmentKind' });
    spec
      .given(history().request(T0, 'queued').events)
      .when({ type: 'ClaimRun', data: { runId: 'run-1', owner: 'interactive:host-a:101' }, metadata: { now: T0 } })
      .thenRejects(RunNotClaimableError, { why: 'wrongSegmentKind' });
  });

  it('refuses an owner that does not name its kind, host and process', () => {
    spec
      .given(history().request(T0).events)
      .when({ type: 'ClaimRun', data: { runId: 'run-1', owner: 'someone' }, metadata: { now: T0 } })
      .thenRejects(InvalidFieldError, { field: 'data.owner' });
  });

  it('refuses a claim of a run that does not exist', () => {
    spec
      .given([])
      .when({ type: 'ClaimRun', data: { runId: 'run-9', owner: WORKER }, metadata: { now: T0 } })
      .thenRejects(RunNotFoundError, { runId: 'run-9' });
  });
});
