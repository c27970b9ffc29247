import Database from 'better-sqlite3';
import { QueryBus } from '@nestjs/cqrs';
import { GetAuditReview } from '@agent-ledger/projections';
import { eventually } from '@agent-ledger/runtime/testing';
import type { HttpTestApp } from '../testing/http-test-app';
import { httpTestKey, startHttpTestApp } from '../testing/http-test-app';
import type { AuditReviewAnswer } from '@agent-ledger/http';

describe('GET /audit/review: the verdict from the stores', () => {
  const auditor = httpTestKey('auditor', ['audit:read', 'runs:submit']);
  let app: HttpTestApp;
  const runs: string[] = [];

  beforeAll(async () => {
    app = await startHttpTestApp({ keys: [auditor] });
    // `writer` makes one pre-approved write, audited.
    for (const agent of ['writer', 'writer']) {
      const started = await app.call('POST', '/runs', { key: auditor, body: { agent, input: 'go', mode: 'interactive' } });
      expect(started.body).toMatchObject({ run: { status: 'COMPLETED' } });
      runs.push((started.body as { runId: string }).runId);
    }
  });
  afterAll(() => app.close());

  async function review(query = ''): Promise<AuditReviewAnswer> {
    const answer = await app.call('GET', `/audit/review${query}`, { key: auditor });
    expect(answer.status).toBe(200);
    return answer.body as AuditReviewAnswer;
  }

  it('answers the read model and the verdict, then a finding naming the run and step once the tail of its audit stream is deleted, which the read model does not see', async () => {
    // The read model follows the stores in the background: wait until it has both writes.
    const before = await eventually(async () => {
      const body = await review();
      return body.totals.writesAudited === 2 ? body : undefined;
    }, 10_000, 'the read model to hold both writes');
    expect(before).toMatchObject({ findings: false, verdict: { findings: false, problems: [], totals: { writesExecuted: 2, writesAudited: 2, auditedLate: 0 } } });
    expect((await review()).verdict.verification).toMatchObject({ mode: 'incremental', fullBecause: null, headsChecked: 2 });

    const [tampered, intact] = runs as [string, string];
    const db = new Database(app.config.eventStorePath as string);
    try {
      // The write's audit record is #2, after the start statement #0 and the model's #1: the stream keeps only those two.
      expect(db.prepare('DELETE FROM events WHERE stream_name = ? AND revision >= 2').run(`audit-${tampered}`).changes).toBe(2);
    } finally {
      db.close();
    }

    const after = await review();
    expect(after.findings).toBe(true);
    expect(after.verdict.verification).toMatchObject({ mode: 'full', fullBecause: `the audit head of run ${tampered} (record #3) is gone` });
    expect(after.verdict.writesWithoutAudit).toEqual([expect.objectContaining({ runId: tampered, stepId: `${tampered}/r0/t0`, runEnd: 'COMPLETED', allowedBy: null })]);
    expect(after.verdict.problems).toEqual(['the run store holds 1 executed write whose audit records are not in this audit store, in runs that neither failed closed nor were cancelled naming the write']);
    // The read model, built before the deletion, still counts the write as audited: the verdict does not rely on it.
    expect(after.totals).toMatchObject({ writesAudited: 2, writesWithoutAudit: 0 });

    expect((await review(`?runId=${tampered}`)).findings).toBe(true);
    expect((await review(`?runId=${intact}`))).toMatchObject({ findings: false, verdict: { totals: { writesExecuted: 1, writesAudited: 1 } } });
  });

  it('answers 400 for a bad query', async () => {
    const answer = await app.call('GET', '/audit/review?limit=0', { key: auditor });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ code: 'INVALID_FIELD', field: 'limit' });
    const full = await app.call('GET', '/audit/review?full=yes', { key: auditor });
    expect(full.status).toBe(400);
    expect(full.body).toMatchObject({ code: 'INVALID_FIELD', field: 'full' });
  });
});

describe('GET /audit/review and GetAuditReview on the bus: one answer', () => {
  const auditor = httpTestKey('auditor', ['audit:read', 'runs:submit']);
  let app: HttpTestApp;
  let runId: string;

  beforeAll(async () => {
    app = await startHttpTestApp({ keys: [auditor] });
    const started = await app.call('POST', '/runs', { key: auditor, body: { agent: 'writer', input: 'go', mode: 'interactive' } });
    expect(started.body).toMatchObject({ run: { status: 'COMPLETED' } });
    runId = (started.body as { runId: string }).runId;
  });
  afterAll(() => app.close());

  async function review(query = ''): Promise<AuditReviewAnswer> {
    const answer = await app.call('GET', `/audit/review${query}`, { key: auditor });
    expect(answer.status).toBe(200);
    return answer.body as AuditReviewAnswer;
  }

  /** An answer as JSON, without the figures two successive reviews never share: how long each took, and the rounds of head checks done before it. */
  function timeless(answer: object): unknown {
    const { verdict } = answer as AuditReviewAnswer;
    return JSON.parse(JSON.stringify({ ...answer, verdict: { ...verdict, verification: { ...verdict.verification, durationMs: 0, headRounds: 0 } } })) as unknown;
  }

  it('the first review of the service is a full pass (no checkpoint file yet), then incremental; full=true runs a full pass', async () => {
    const first = await review();
    expect(first.verdict.verification).toMatchObject({ mode: 'full', fullBecause: 'no checkpoint file yet', checkpoint: null });
    expect((await review()).verdict.verification).toMatchObject({ mode: 'incremental', fullBecause: null, checkpoint: 'memory', headsChecked: 1 });
    const full = await review('?full=true');
    expect(full.verdict.verification).toMatchObject({ mode: 'full', fullBecause: 'a full verification was asked', headsChecked: 0 });
    expect((await review('?full=false')).verdict.verification).toMatchObject({ mode: 'incremental' });
    expect({ ...full.verdict, verification: null }).toEqual({ ...first.verdict, verification: null });
  });

  it('GetAuditReview answers what GET /audit/review answers, for every run and for one', async () => {
    const bus = app.app.get(QueryBus);
    // The read model follows the stores in the background: wait until it has the write.
    await eventually(async () => ((await review()).totals.writesAudited === 1 ? true : undefined), 10_000, 'the read model to hold the write');
    for (const query of [{}, { runId }, { limit: 1 }] as const) {
      const search = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)])).toString();
      const http = await review(search === '' ? '' : `?${search}`);
      const onBus = await bus.execute(new GetAuditReview(query));
      expect(onBus.verdict).not.toBeNull();
      expect(timeless(onBus)).toEqual(timeless(http));
    }
    const onBus = await bus.execute(new GetAuditReview({ full: true }));
    expect(onBus).toMatchObject({ findings: false, verdict: { verification: { mode: 'full', fullBecause: 'a full verification was asked' } } });
  });
});

describe('GET /audit/review right after a write was audited', () => {
  const auditor = httpTestKey('auditor', ['audit:read', 'runs:submit']);
  let app: HttpTestApp;

  beforeAll(async () => {
    app = await startHttpTestApp({ keys: [auditor] });
  });
  afterAll(() => app.close());

  // The read models batch live events for up to 20 ms: without waiting for them, the review answered the moment
  // the interactive run completed counted its write as executed and not audited (a false alarm, with the verdict
  // from the stores saying the opposite).
  it('counts the write as audited, in agreement with its verdict, the moment the run answered COMPLETED', async () => {
    const totals: unknown[] = [];
    for (let i = 0; i < 10; i++) {
      const started = await app.call('POST', '/runs', { key: auditor, body: { agent: 'writer', input: `go ${i}`, mode: 'interactive' } });
      expect(started.body).toMatchObject({ run: { status: 'COMPLETED' } });
      const runId = (started.body as { runId: string }).runId;
      const answer = await app.call('GET', `/audit/review?runId=${runId}`, { key: auditor });
      const body = answer.body as AuditReviewAnswer;
      totals.push({ status: answer.status, readModel: body.totals, verdict: body.verdict.totals.writesAudited });
    }
    expect(totals).toEqual(
      Array.from({ length: 10 }, () => ({
        status: 200,
        readModel: expect.objectContaining({ writesExecuted: 1, writesAudited: 1, writesWithoutAudit: 0 }),
        verdict: 1,
      })),
    );
  });
});
