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
import Database from 'better-sqlite3';
import type { Browser } from 'playwright-core';
import type { AuditReviewReport } from '@agent-ledger/projections';
import { eventually } from '../e2e/support/http-service';
import { holdWriteLock } from './support/audit-lock';
import { launchChromium } from './support/chromium';
import type { ConsoleTab } from './support/console-page';
import { openConsoleTab, UI_TIMEOUT_MS } from './support/console-page';
import type { ConsoleService } from './support/console-service';
import { startConsoleService } from './support/console-service';
import { scaled } from '../support/time-scale';

jest.setTimeout(scaled(120_000));

describe('the console: audit review and projections (browser)', () => {
  let service: ConsoleService;
  let browser: Browser;
  /** The run that failed closed (first test). */
  let failedClosed: string;
  /** Its write's step (the write without audit). */
  let failedStep: string;
  let completed: string;
  let tab: ConsoleTab | undefined;

  beforeAll(async () => {
    // The gap saga's grace is short, so the failed-closed write's gap is reported (AuditGapDetected) within the test;
    // a refused append waits 500 ms for the audit file's lock, not the default 5 s.
    service = await startConsoleService({ env: { AUDIT_GAP_GRACE_MS: '500', STORE_BUSY_TIMEOUT_MS: '500' } });
    browser = await launchChromium();
  });

  afterEach(async () => {
    await tab?.close();
    tab = undefined;
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
      // Each refused audit append waits the store's busy timeout (500 ms here): the model step's (fail-soft), then the write's.
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
    failedStep = (review.body.writesWithoutAudit[0] as { stepId: string }).stepId;
    expect(review.body.writes.find((w) => w.runId === completed)).toMatchObject({ audited: true });

    // After the release, audits are stored again.
    const after = await service.startRun('scribe', 'after the lock');
    await service.runWith(after, 'COMPLETED');
    const afterReview = await service.as(service.keys.auditor).get<AuditReviewReport>(`/audit/review?runId=${after}`);
    expect(afterReview.body.totals).toMatchObject({ writesExecuted: 1, writesAudited: 1, writesWithoutAudit: 0 });
  });

  /** Signs in with `key` and opens the audit review, loaded. */
  const openAuditReview = async (key = service.keys.auditor): Promise<ConsoleTab> => {
    const opened = await openConsoleTab(browser, service);
    await opened.go('#/audit');
    await opened.signIn(key);
    await opened.go('#/audit');
    await opened.page.locator(`[data-testid=failed-closed-row][data-run-id="${failedClosed}"]`).waitFor({ timeout: UI_TIMEOUT_MS });
    return opened;
  };

  it('the audit review shows the failed-closed write: its run in runs-failed-closed, total-runsFailedClosed, the write without audit, the gap the saga found, and the chart', async () => {
    // The saga reports the write's gap once its grace is over (500 ms here).
    await eventually(async () => {
      const answer = await service.as(service.keys.auditor).get<AuditReviewReport>('/audit/review');
      return answer.body.gaps.some((g) => g.stepId === failedStep) ? true : undefined;
    }, 'the gap of the failed-closed write');
    tab = await openAuditReview();
    const { page } = tab;
    expect(Number(await page.getByTestId('total-runsFailedClosed').textContent())).toBeGreaterThanOrEqual(1);
    expect(Number(await page.getByTestId('total-writesWithoutAudit').textContent())).toBe(1);
    expect(await page.locator('[data-testid=audit-totals] [data-testid^=total-]').count()).toBeGreaterThanOrEqual(5);
    expect(await page.locator('[data-testid=runs-failed-closed] [data-testid=failed-closed-row]').count()).toBe(1);
    await page.locator(`[data-testid=writes-without-audit] [data-testid=write-without-audit-row][data-step-id="${failedStep}"]`).waitFor({ timeout: UI_TIMEOUT_MS });
    await page.getByTestId('audit-gaps').waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await page.getByTestId('audit-gaps').textContent()).toContain(failedStep);
    // The completed run's audited write is no finding.
    expect(await page.locator(`[data-testid=failed-closed-row][data-run-id="${completed}"]`).count()).toBe(0);
    const chart = page.getByTestId('audit-chart');
    await chart.waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await chart.evaluate((element) => element.tagName.toLowerCase())).toBe('svg');
    await tab.screenshot('audit-review');
    tab.expectNoProblems();
  });

  it("the failed-closed run's page: FAILED, AUDIT_PERSISTENCE_FAILED, the write executed and no audit record of it; requeue offered to the operator only", async () => {
    tab = await openAuditReview(service.keys.operator);
    const { page } = tab;
    await page.locator(`[data-testid=failed-closed-row][data-run-id="${failedClosed}"] a`).first().click();
    await page.waitForURL((url) => url.hash === `#/runs/${encodeURIComponent(failedClosed)}`, { timeout: UI_TIMEOUT_MS });
    await page.locator('[data-testid=run-status][data-status=FAILED]').waitFor({ timeout: UI_TIMEOUT_MS });
    expect((await page.getByTestId('run-status').textContent())?.trim()).toBe('FAILED');
    await page.locator('[data-testid=run-reason]:has-text("AUDIT_PERSISTENCE_FAILED")').waitFor({ timeout: UI_TIMEOUT_MS });
    await page.locator('[data-testid=timeline-event][data-type=RunFailed]').waitFor({ timeout: UI_TIMEOUT_MS });
    const types = (await page.locator('[data-testid=timeline-event]').evaluateAll((items) => items.map((item) => item.getAttribute('data-type')))) as string[];
    expect(types).toEqual(expect.arrayContaining(['StepStarted', 'ToolExecuted', 'RunFailed']));
    expect(await page.getByTestId('effect-badge').allTextContents()).toEqual(expect.arrayContaining([expect.stringContaining('IDEMPOTENT_WRITE')]));
    await page.getByTestId('requeue-run').waitFor({ timeout: UI_TIMEOUT_MS }); // dead-lettered: the operator may requeue it
    tab.expectNoProblems();
    await tab.close();

    tab = await openAuditReview(service.keys.auditor);
    await tab.go(`#/runs/${encodeURIComponent(failedClosed)}`);
    await tab.page.locator('[data-testid=run-status][data-status=FAILED]').waitFor({ timeout: UI_TIMEOUT_MS });
    await tab.page.locator('[data-testid=timeline-event][data-type=RunFailed]').waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await tab.page.getByTestId('requeue-run').count()).toBe(0);
    tab.expectNoProblems();
  });

  it('export-csv and export-json download audit-review-<timestamp>.csv and .json: the CSV has its header and the failed-closed write, the JSON parses and holds the review', async () => {
    tab = await openAuditReview();
    const { page } = tab;
    const [csvDownload] = await Promise.all([page.waitForEvent('download', { timeout: UI_TIMEOUT_MS }), page.getByTestId('export-csv').click()]);
    expect(csvDownload.suggestedFilename()).toMatch(/^audit-review-[0-9TZ:.-]+\.csv$/);
    const csv = readFileSync(await csvDownload.path(), 'utf8');
    const [header, ...lines] = csv.split(/\r?\n/).filter((line) => line !== '');
    const columns = (header as string).split(',');
    expect(columns).toEqual(expect.arrayContaining(['stepId', 'runId', 'effect', 'audited']));
    const failedLine = lines.map((line) => line.split(',')).find((cells) => cells[columns.indexOf('stepId')] === failedStep);
    expect(failedLine).toBeDefined();
    expect(failedLine?.[columns.indexOf('runId')]).toBe(failedClosed);
    expect(failedLine?.[columns.indexOf('audited')]).toBe('false');
    expect(lines.some((line) => line.includes(completed))).toBe(true);

    const [jsonDownload] = await Promise.all([page.waitForEvent('download', { timeout: UI_TIMEOUT_MS }), page.getByTestId('export-json').click()]);
    expect(jsonDownload.suggestedFilename()).toMatch(/^audit-review-[0-9TZ:.-]+\.json$/);
    const text = readFileSync(await jsonDownload.path(), 'utf8');
    const exported = JSON.parse(text) as unknown;
    // Wherever the report sits in the export: an object with the review's totals, one run failed closed.
    const totals = findObject(exported, (o) => typeof o.runsFailedClosed === 'number' && typeof o.writesWithoutAudit === 'number');
    expect(totals).toMatchObject({ runsFailedClosed: 1, writesWithoutAudit: 1 });
    expect(text).toContain(failedClosed);
    tab.expectNoProblems();
  });

  it('verify-chains verifies every audit chain (chains-result), as GET /audit/chains does', async () => {
    const api = await service.as(service.keys.auditor).get<{ runs: number; brokenRuns: string[] }>('/audit/chains');
    expect(api.status).toBe(200);
    expect(api.body.brokenRuns).toEqual([]);
    tab = await openAuditReview();
    const { page } = tab;
    const before = await page.getByTestId('chains-result').textContent();
    await page.getByTestId('verify-chains').click();
    await page.waitForFunction(
      (previous) => {
        const result = (globalThis as unknown as { document: { querySelector(s: string): { textContent: string | null } | null } }).document.querySelector('[data-testid=chains-result]');
        return result !== null && (result.textContent ?? '') !== previous && (result.textContent ?? '').trim() !== '';
      },
      before,
      { timeout: UI_TIMEOUT_MS },
    );
    const result = (await page.getByTestId('chains-result').textContent()) ?? '';
    expect(result).toContain(String(api.body.runs));
    expect(result).not.toMatch(/broken/i);
    tab.expectNoProblems();
  });

  it('the rebuild button rebuilds the read models in the service to succeeded; the projections are listed', async () => {
    tab = await openConsoleTab(browser, service);
    await tab.go('#/projections');
    await tab.signIn(service.keys.operator);
    const { page } = tab;
    await tab.go('#/projections');
    // One row per projection and source (runs, and audit: AUDIT_STORE_PATH).
    await page.locator('[data-testid=projection-row][data-projection=runStatus]').first().waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await page.locator('[data-testid=projection-row][data-projection=runStatus]').count()).toBe(2);
    expect(await page.getByTestId('projection-row').count()).toBeGreaterThanOrEqual(3);
    await page.locator('[data-testid=rebuild-progress][data-state=idle]').waitFor({ timeout: UI_TIMEOUT_MS });
    const rebuild = page.getByTestId('rebuild');
    await page.locator('[data-testid=rebuild]:not([disabled])').waitFor({ timeout: UI_TIMEOUT_MS });
    await rebuild.click();
    await page.locator('[data-testid=rebuild-progress][data-state=succeeded]').waitFor({ timeout: scaled(60_000) });
    const state = await service.as(service.keys.operator).get<{ rebuild: { state: string; requestedBy: string | null } }>('/projections/rebuild');
    expect(state.body.rebuild).toMatchObject({ state: 'succeeded', requestedBy: 'key:operator' });
    // The rebuilt read models still tell the same story.
    const review = await service.as(service.keys.auditor).get<AuditReviewReport>('/audit/review');
    expect(review.body.runsFailedClosed.map((r) => r.runId)).toEqual([failedClosed]);
    await tab.screenshot('projections');
    tab.expectNoProblems();
  });

  it('the verdict comes from the stores: once the tail of an audit stream is deleted from the file, the page names the write without audit, which the read model still counts audited', async () => {
    tab = await openAuditReview();
    // The failed-closed write is listed, allowed by the contract: no finding.
    await tab.page.locator(`[data-testid=store-write-without-audit-row][data-step-id="${failedStep}"]`).waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await tab.page.locator(`[data-testid=store-write-without-audit-row][data-run-id="${completed}"]`).count()).toBe(0);
    expect(await tab.page.getByTestId('audit-verdict').getAttribute('data-findings')).toBe('false');
    await tab.close();
    tab = undefined;

    // Someone with access to the audit file deletes the completed run's write record and what follows it.
    const db = new Database(service.auditStorePath);
    try {
      expect(db.prepare('DELETE FROM events WHERE stream_name = ? AND revision >= 1').run(`audit-${completed}`).changes).toBeGreaterThanOrEqual(1);
    } finally {
      db.close();
    }
    const answer = await service.as(service.keys.auditor).get<{ findings: boolean; totals: { writesWithoutAudit: number }; verdict: { writesWithoutAudit: { runId: string; allowedBy: string | null }[] } }>('/audit/review');
    expect(answer.body.findings).toBe(true);
    expect(answer.body.verdict.writesWithoutAudit.find((w) => w.runId === completed)).toMatchObject({ allowedBy: null });
    expect(answer.body.totals.writesWithoutAudit).toBe(1);

    tab = await openAuditReview();
    const { page } = tab;
    const row = page.locator(`[data-testid=store-write-without-audit-row][data-run-id="${completed}"]`);
    await row.waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await row.textContent()).toContain('nothing');
    expect(await page.getByTestId('audit-verdict').getAttribute('data-findings')).toBe('true');
    expect(await page.getByTestId('audit-verdict').textContent()).toContain('1 executed write whose audit records are not in this audit store');
    expect(Number(await page.getByTestId('total-writesWithoutAudit').textContent())).toBe(1);
    tab.expectNoProblems();
  });
});

/** The first object (depth first) in `value` for which `accept` holds. */
function findObject(value: unknown, accept: (o: Record<string, unknown>) => boolean): Record<string, unknown> | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  if (!Array.isArray(value) && accept(value as Record<string, unknown>)) return value as Record<string, unknown>;
  for (const child of Object.values(value as Record<string, unknown>)) {
    const found = findObject(child, accept);
    if (found !== undefined) return found;
  }
  return undefined;
}
