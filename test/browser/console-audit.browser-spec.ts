/**
 * The console's audit review and projections, in Chromium, against the built
 * service. A write whose audit cannot be stored fails its run closed: the
 * test process holds the audit store's write lock (the audit streams are in a
 * file of their own, `AUDIT_STORE_PATH`) while a `ledger-writer` run writes,
 * the run fails `AUDIT_PERSISTENCE_FAILED` (checked through the API first),
 * and the console's audit review shows it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import type { AuditReviewReport } from '@agent-ledger/projections';
import { holdWriteLock } from './support/audit-lock';
import { launchChromium } from './support/chromium';
import type { ConsoleService } from './support/console-service';
import { startConsoleService } from './support/console-service';

jest.setTimeout(120_000);

describe('the console: audit review and projections (browser)', () => {
  let service: ConsoleService;
  let browser: Browser;
  /** The run that failed closed (first test). */
  let failedClosed: string;
  let completed: string;

  beforeAll(async () => {
    // The gap saga's grace is short, so the failed-closed write's gap is reported (AuditGapDetected) within the test.
    service = await startConsoleService({ env: { AUDIT_GAP_GRACE_MS: '500' } });
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
  });

  it('(API) a write whose audit the locked audit store refuses fails its run closed: FAILED, AUDIT_PERSISTENCE_FAILED; the write ran once', async () => {
    completed = await service.startRun('scribe', 'before the lock');
    await service.runWith(completed, 'COMPLETED');
    expect(existsSync(service.auditStorePath)).toBe(true);

    const lock = holdWriteLock(service.auditStorePath);
    try {
      failedClosed = await service.startRun('ledger-writer', 'write while the audit store is locked');
      // Each refused audit append waits the store's busy timeout (5 s): the model step's (fail-soft), then the write's.
      const row = await service.runWith(failedClosed, 'FAILED', 40_000);
      expect(row).toMatchObject({ reason: 'AUDIT_PERSISTENCE_FAILED', failureCode: 'AUDIT_PERSISTENCE_FAILED' });
    } finally {
      lock.release();
    }
    expect(readFileSync(join(service.workspaceDir, 'ledger.txt'), 'utf8')).toBe('ledger line');

    const review = await service.as(service.keys.auditor).get<AuditReviewReport>('/audit/review');
    expect(review.status).toBe(200);
    expect(review.body.totals.runsFailedClosed).toBe(1);
    expect(review.body.runsFailedClosed.map((r) => r.runId)).toEqual([failedClosed]);
    expect(review.body.writesWithoutAudit.map((w) => w.runId)).toEqual([failedClosed]);
    expect(review.body.writes.find((w) => w.runId === completed)).toMatchObject({ audited: true });

    // After the release, audits are stored again.
    const after = await service.startRun('scribe', 'after the lock');
    await service.runWith(after, 'COMPLETED');
    const afterReview = await service.as(service.keys.auditor).get<AuditReviewReport>(`/audit/review?runId=${after}`);
    expect(afterReview.body.totals).toMatchObject({ writesExecuted: 1, writesAudited: 1, writesWithoutAudit: 0 });
  });
});
