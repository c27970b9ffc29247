/**
 * The console's page and its sign-in, in Chromium, against the built service:
 * the page's Content Security Policy, the API key kept in the tab's
 * `sessionStorage` only, and what each key's scopes show (the operator's
 * every scope, the auditor's review without decisions, the clerk limited to
 * one agent).
 */
import type { Browser } from 'playwright-core';
import type { ApprovalPage } from '@agent-ledger/projections';
import { eventually, request } from '../e2e/support/http-service';
import { launchChromium } from './support/chromium';
import type { ConsoleTab } from './support/console-page';
import { openConsoleTab, UI_TIMEOUT_MS } from './support/console-page';
import type { ConsoleService } from './support/console-service';
import { startConsoleService } from './support/console-service';
import { scaled } from '../support/time-scale';

jest.setTimeout(scaled(120_000));

/** Chromium's own console line for an answer with an error status (the sign-in's check of a wrong key). */
const UNAUTHORIZED_LOAD = /Failed to load resource: the server responded with a status of 401/;

describe('the console: page, sign-in and scopes (browser)', () => {
  let service: ConsoleService;
  let browser: Browser;
  let tab: ConsoleTab | undefined;
  /** A run of `approver` waiting for its append's approval; one of `scribe`, completed. */
  let pendingRun: string;
  let scribeRun: string;

  beforeAll(async () => {
    service = await startConsoleService();
    browser = await launchChromium();
    scribeRun = await service.startRun('scribe', 'a note');
    pendingRun = await service.startRun('approver', 'log it');
    await service.runWith(scribeRun, 'COMPLETED');
    await service.runWith(pendingRun, 'WAITING_FOR_APPROVAL');
    await eventually(async () => {
      const answer = await service.as(service.keys.operator).get<ApprovalPage>(`/approvals?state=pending&runId=${pendingRun}`);
      return answer.body.approvals.length === 1 ? true : undefined;
    }, 'the pending approval in the read model');
  });

  afterEach(async () => {
    await tab?.close();
    tab = undefined;
  });

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
  });

  it("GET /console/ serves the page with a Content-Security-Policy whose script-src is 'self' only, and the page has no inline script", async () => {
    const response = await fetch(service.consoleUrl);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = response.headers.get('content-security-policy');
    expect(csp).not.toBeNull();
    const directives = new Map(
      (csp as string)
        .split(';')
        .map((d) => d.trim().split(/\s+/))
        .filter((d) => d[0] !== '')
        .map((d) => [d[0] as string, d.slice(1)]),
    );
    expect(directives.get('script-src')).toEqual(["'self'"]);
    expect(directives.get('default-src')).toEqual(["'none'"]);
    expect(directives.get('frame-ancestors')).toEqual(["'none'"]);
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval/);

    const html = await response.text();
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)];
    expect(scripts.length).toBeGreaterThan(0);
    for (const [, attributes, body] of scripts) {
      expect(attributes).toMatch(/\ssrc=/);
      expect((body as string).trim()).toBe('');
    }
    expect(html).not.toMatch(/\son[a-z]+=/i); // no inline event handlers either
    // Each script the page names is served, from this origin.
    for (const [, attributes] of scripts) {
      const src = /\ssrc="([^"]+)"/.exec(attributes as string)?.[1] as string;
      const url = new URL(src, service.consoleUrl);
      expect(url.origin).toBe(service.baseUrl);
      const script = await fetch(url);
      expect(script.status).toBe(200);
      expect(script.headers.get('content-type')).toMatch(/javascript/);
    }
    // The page loads under that policy with no violation (checked by expectNoProblems).
    tab = await openConsoleTab(browser, service);
    await tab.go('');
    await tab.page.getByTestId('api-key').waitFor({ timeout: UI_TIMEOUT_MS });
    tab.expectNoProblems();
  });

  it('a wrong key shows sign-in-error and stores nothing', async () => {
    tab = await openConsoleTab(browser, service);
    await tab.go('#/sign-in');
    const wrong = 'not-a-key-of-this-service-0123456789';
    await tab.signIn(wrong);
    await tab.page.getByTestId('sign-in-error').waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await tab.page.getByTestId('signed-in-as').count()).toBe(0);
    expect(await tab.page.getByTestId('api-key').isVisible()).toBe(true);
    const storage = await tab.storage();
    expect(JSON.stringify(storage)).not.toContain(wrong);
    expect(Object.keys(storage.session)).toEqual([]);
    expect(tab.page.url()).not.toContain(wrong);
    expect(tab.requestUrls().filter((url) => url.includes(wrong))).toEqual([]);
    tab.expectNoProblems([UNAUTHORIZED_LOAD]);
  });

  it('the operator signs in: its key id and every page; the key is in sessionStorage only (not in a URL, localStorage or a cookie); a reload keeps the session; sign-out clears it', async () => {
    const { operator } = service.keys;
    tab = await openConsoleTab(browser, service);
    await tab.go('');
    await tab.signIn(operator);
    const { page } = tab;
    expect(await page.getByTestId('signed-in-as').textContent()).toContain('operator');
    for (const nav of ['nav-runs', 'nav-audit', 'nav-approvals', 'nav-projections']) {
      await page.getByTestId(nav).waitFor({ timeout: UI_TIMEOUT_MS });
    }
    await page.locator(`[data-testid=run-row][data-run-id="${scribeRun}"]`).waitFor({ timeout: UI_TIMEOUT_MS });

    let storage = await tab.storage();
    expect(Object.values(storage.session)).toContain(operator.key);
    expect(JSON.stringify(storage.local)).not.toContain(operator.key);
    expect(storage.cookies.join(';')).not.toContain(operator.key);
    expect(page.url()).not.toContain(operator.key);
    expect(tab.requestUrls().filter((url) => url.includes(operator.key))).toEqual([]);

    // Each page opens from the navigation.
    for (const [nav, ready] of [
      ['nav-audit', 'audit-totals'],
      ['nav-approvals', 'approval-row'],
      ['nav-projections', 'projection-row'],
      ['nav-runs', 'runs-table'],
    ] as const) {
      await page.getByTestId(nav).click();
      await page.getByTestId(ready).first().waitFor({ timeout: UI_TIMEOUT_MS });
    }

    await page.reload();
    await page.getByTestId('signed-in-as').waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await page.getByTestId('signed-in-as').textContent()).toContain('operator');
    await page.locator(`[data-testid=run-row][data-run-id="${scribeRun}"]`).waitFor({ timeout: UI_TIMEOUT_MS });

    await page.getByTestId('sign-out').click();
    await page.getByTestId('api-key').waitFor({ timeout: UI_TIMEOUT_MS });
    storage = await tab.storage();
    expect(JSON.stringify(storage)).not.toContain(operator.key);
    expect(await page.getByTestId('signed-in-as').count()).toBe(0);
    // Signed out stays signed out after a reload.
    await page.reload();
    await page.getByTestId('api-key').waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await page.getByTestId('signed-in-as').count()).toBe(0);
    tab.expectNoProblems();
  });

  it('the auditor (audit:read, runs:read) sees the runs, the approvals and the audit review, but no start form, no projections page, and no decision or operator actions', async () => {
    tab = await openConsoleTab(browser, service);
    await tab.go('');
    await tab.signIn(service.keys.auditor);
    const { page } = tab;
    await page.locator(`[data-testid=run-row][data-run-id="${pendingRun}"][data-status=WAITING_FOR_APPROVAL]`).waitFor({ timeout: UI_TIMEOUT_MS });
    await page.getByTestId('nav-audit').waitFor();
    await page.getByTestId('nav-approvals').waitFor();
    expect(await page.getByTestId('nav-projections').count()).toBe(0);
    expect(await page.getByTestId('start-submit').count()).toBe(0);
    expect(await page.getByTestId('start-agent').count()).toBe(0);

    await tab.go('#/approvals');
    const row = page.locator(`[data-testid=approval-row][data-run-id="${pendingRun}"]`);
    await row.waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await row.getAttribute('data-state')).toBe('pending');
    expect(await page.getByTestId('approve').count()).toBe(0);
    expect(await page.getByTestId('deny').count()).toBe(0);

    await tab.go(`#/runs/${encodeURIComponent(pendingRun)}`);
    await page.locator('[data-testid=run-status][data-status=WAITING_FOR_APPROVAL]').waitFor({ timeout: UI_TIMEOUT_MS });
    await page.locator('[data-testid=timeline-event]').first().waitFor({ timeout: UI_TIMEOUT_MS });
    for (const action of ['approve-run', 'deny-run', 'cancel-run', 'requeue-run']) {
      expect(await page.getByTestId(action).count()).toBe(0);
    }

    await tab.go('#/audit');
    await page.getByTestId('total-runsFailedClosed').waitFor({ timeout: UI_TIMEOUT_MS });
    tab.expectNoProblems();
  });

  it('the operator sees the decision and cancel actions on the same waiting run (the auditor test above is not vacuous)', async () => {
    tab = await openConsoleTab(browser, service);
    await tab.go(`#/runs/${encodeURIComponent(pendingRun)}`);
    await tab.signIn(service.keys.operator);
    const { page } = tab;
    await tab.go(`#/runs/${encodeURIComponent(pendingRun)}`);
    await page.locator('[data-testid=run-status][data-status=WAITING_FOR_APPROVAL]').waitFor({ timeout: UI_TIMEOUT_MS });
    for (const action of ['approve-run', 'deny-run', 'cancel-run']) {
      await page.getByTestId(action).waitFor({ timeout: UI_TIMEOUT_MS });
    }
    expect(await page.getByTestId('requeue-run').count()).toBe(0); // not a settled run
    await tab.go('#/approvals');
    const row = page.locator(`[data-testid=approval-row][data-run-id="${pendingRun}"][data-state=pending]`);
    await row.getByTestId('approve').waitFor({ timeout: UI_TIMEOUT_MS });
    await row.getByTestId('deny').waitFor({ timeout: UI_TIMEOUT_MS });
    tab.expectNoProblems();
  });

  it("the clerk (runs:submit, runs:read, scribe's runs only) starts scribe only, lists scribe's runs only, and has no audit or projections page", async () => {
    tab = await openConsoleTab(browser, service);
    await tab.go('');
    await tab.signIn(service.keys.clerk);
    const { page } = tab;
    await page.locator(`[data-testid=run-row][data-run-id="${scribeRun}"]`).waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await page.locator(`[data-testid=run-row][data-run-id="${pendingRun}"]`).count()).toBe(0);
    expect(await page.getByTestId('nav-audit').count()).toBe(0);
    expect(await page.getByTestId('nav-projections').count()).toBe(0);
    await page.getByTestId('nav-approvals').waitFor();
    await page.getByTestId('start-submit').waitFor();
    await page.locator('[data-testid=start-agent] option').first().waitFor({ state: 'attached', timeout: UI_TIMEOUT_MS });
    expect((await page.locator('[data-testid=start-agent] option').allTextContents()).map((t) => t.trim())).toEqual(['scribe']);
    // Its session is refused the audit review by the API too (the console hides what the key cannot do, the API enforces it).
    const review = await request(service.baseUrl, 'GET', '/audit/review', undefined, { authorization: `Bearer ${service.keys.clerk.key}` });
    expect(review.status).toBe(403);
    tab.expectNoProblems();
  });
});
