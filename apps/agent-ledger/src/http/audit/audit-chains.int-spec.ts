import Database from 'better-sqlite3';
import type { AuditStoreVerdict, AuditStoreVerification } from '@agent-ledger/runtime';
import type { HttpTestApp } from '../testing/http-test-app';
import { httpTestKey, startHttpTestApp } from '../testing/http-test-app';

describe('GET /audit/chains', () => {
  const auditor = httpTestKey('auditor', ['audit:read', 'runs:submit']);
  const writerAuditor = httpTestKey('writer-auditor', ['audit:read'], ['writer']);
  const clockAuditor = httpTestKey('clock-auditor', ['audit:read'], ['clock']);
  const reader = httpTestKey('reader', ['runs:read']);
  let app: HttpTestApp;
  const runs: string[] = [];

  beforeAll(async () => {
    app = await startHttpTestApp({ keys: [auditor, writerAuditor, clockAuditor, reader] });
    // Each run's model calls and tool calls are audited (a write and a read: three records per run).
    for (const agent of ['writer', 'writer', 'clock']) {
      const started = await app.call('POST', '/runs', { key: auditor, body: { agent, input: 'go', mode: 'interactive' } });
      expect(started.body).toMatchObject({ run: { status: 'COMPLETED' } });
      runs.push((started.body as { runId: string }).runId);
    }
  });
  afterAll(() => app.close());

  /** The audit records of a run, counted in the store. */
  function recordsOf(runId: string): number {
    const db = new Database(app.config.eventStorePath as string, { readonly: true });
    try {
      return (db.prepare('SELECT COUNT(*) AS n FROM events WHERE stream_name = ?').get(`audit-${runId}`) as { n: number }).n;
    } finally {
      db.close();
    }
  }

  it("verifies every run's chain: intact", async () => {
    const answer = await app.call('GET', '/audit/chains', { key: auditor });
    expect(answer.status).toBe(200);
    const records = runs.map(recordsOf);
    expect(records.every((n) => n > 0)).toBe(true);
    expect(answer.body).toMatchObject({ runs: 3, records: records[0]! + records[1]! + records[2]!, brokenRuns: [], breaks: [] } satisfies AuditStoreVerification);
    // The verdict of a full pass: every write of the run store matched to its audit.
    expect(answer.body).toMatchObject({ findings: false, problems: [], totals: { writesExecuted: 2, writesAudited: 2, writesWithoutAudit: 0 }, verification: { mode: 'full' } });
  });

  it("verifies one run's chain, for a key of every agent and for a key of that run's agent", async () => {
    for (const key of [auditor, writerAuditor]) {
      const answer = await app.call('GET', `/audit/chains?runId=${runs[0]}`, { key });
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ runs: 1, records: recordsOf(runs[0] as string), brokenRuns: [], breaks: [], findings: false, totals: { writesExecuted: 1, writesAudited: 1 } });
    }
  });

  it('answers 404 for a run of another agent or no run at all, 403 across runs for a limited key, 400 for a bad query, 403 without audit:read', async () => {
    const other = await app.call('GET', `/audit/chains?runId=${runs[0]}`, { key: clockAuditor });
    expect(other.status).toBe(404);
    expect(other.body).toMatchObject({ code: 'RUN_NOT_FOUND', runId: runs[0] });
    expect((await app.call('GET', '/audit/chains?runId=no-such-run', { key: auditor })).body).toMatchObject({ code: 'RUN_NOT_FOUND' });
    expect((await app.call('GET', '/audit/chains', { key: writerAuditor })).body).toMatchObject({ statusCode: 403, code: 'NOT_ENTITLED' });
    const unknown = await app.call('GET', '/audit/chains?run=x', { key: auditor });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ code: 'INVALID_FIELD', field: 'run', rule: 'unknownField' });
    const badId = await app.call('GET', `/audit/chains?runId=${encodeURIComponent('bad id')}`, { key: auditor });
    expect(badId.status).toBe(400);
    expect(badId.body).toMatchObject({ field: 'runId' });
    expect((await app.call('GET', '/audit/chains', { key: reader })).body).toMatchObject({ statusCode: 403, code: 'SCOPE_MISSING', requiredScopes: ['audit:read'] });
  });

  it('finds a record edited in the store, in the whole store and in its run, and not in the other run', async () => {
    const tampered = runs[1] as string;
    const db = new Database(app.config.eventStorePath as string);
    try {
      // Someone with access to the file edits the outcome of the run's write record (#2, after the start statement and the model's record) in place.
      const changed = db.prepare("UPDATE events SET data = replace(data, '\"succeeded\"', '\"failed\"') WHERE stream_name = ? AND revision = 2").run(`audit-${tampered}`);
      expect(changed.changes).toBe(1);
    } finally {
      db.close();
    }
    const all = (await app.call('GET', '/audit/chains', { key: auditor })).body as AuditStoreVerdict;
    expect(all).toMatchObject({ runs: 3, brokenRuns: [tampered] });
    expect(all.breaks).toEqual([expect.objectContaining({ runId: tampered, index: 2, problem: 'hashMismatch' })]);
    expect(all.findings).toBe(true);
    expect((await app.call('GET', `/audit/chains?runId=${tampered}`, { key: auditor })).body).toMatchObject({ runs: 1, records: recordsOf(tampered), brokenRuns: [tampered], breaks: all.breaks, findings: true });
    expect((await app.call('GET', `/audit/chains?runId=${runs[0]}`, { key: auditor })).body).toMatchObject({ brokenRuns: [], breaks: [] });
  });
});
