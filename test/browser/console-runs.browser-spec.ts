/**
 * The console's runs and approvals, in Chromium, against the built service:
 * a run started from the console completes live on its page (its model is
 * held by the test until the page shows it running), the runs list and its
 * filters, and a write that waits for a person approved from the approvals
 * inbox. The agents' behaviour is checked through the API first.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import type { ApprovalPage, RunStatusRow } from '@agent-ledger/projections';
import { eventually } from '../e2e/support/http-service';
import { launchChromium } from './support/chromium';
import type { ConsoleTab } from './support/console-page';
import { openConsoleTab, UI_TIMEOUT_MS } from './support/console-page';
import type { ConsoleService } from './support/console-service';
import { LIVE_WRITE, startConsoleService } from './support/console-service';
import type { GatedModelServer } from './support/gated-model';
import { startGatedModelServer } from './support/gated-model';
import { scaled } from '../support/time-scale';

jest.setTimeout(scaled(120_000));

describe('the console: runs and approvals (browser)', () => {
  let model: GatedModelServer;
  let service: ConsoleService;
  let browser: Browser;
  let tab: ConsoleTab | undefined;
  /** The approver run of the first test: left pending (the approvals screenshot shows it). */
  let stillPending: string;

  beforeAll(async () => {
    model = await startGatedModelServer(LIVE_WRITE);
    service = await startConsoleService({ modelBaseUrl: model.baseUrl });
    browser = await launchChromium();
  });

  afterEach(async () => {
    await tab?.close();
    tab = undefined;
  });

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
    await model?.close();
  });

  const pendingApproval = (runId: string) =>
    eventually(
      async () => {
        const answer = await service.as(service.keys.operator).get<ApprovalPage>(`/approvals?state=pending&runId=${encodeURIComponent(runId)}`);
        return answer.body.approvals[0];
      },
      `the pending approval of ${runId}`,
    );

  it('(API) the agents: scribe completes with its write; approver waits WAITING_FOR_APPROVAL for its append, listed pending; live-writer stays RUNNING until the model answers', async () => {
    const scribe = await service.startRun('scribe', 'a note');
    expect(await service.runWith(scribe, 'COMPLETED')).toMatchObject({ reason: 'COMPLETED' });
    expect(readFileSync(join(service.workspaceDir, 'note.txt'), 'utf8')).toBe('a note');

    const approver = await service.startRun('approver', 'log it');
    stillPending = approver;
    await service.runWith(approver, 'WAITING_FOR_APPROVAL');
    expect(await pendingApproval(approver)).toMatchObject({
      runId: approver,
      agent: 'approver',
      state: 'pending',
      calls: [{ toolName: 'files.append', effect: 'NON_IDEMPOTENT_WRITE', requirement: 'write' }],
    });
    expect(existsSync(join(service.workspaceDir, 'approved.log'))).toBe(false);
    // The auditor reads but may not decide.
    expect((await service.as(service.keys.auditor).post(`/runs/${approver}/approval`, { decision: 'approve' })).status).toBe(403);

    const live = await service.startRun('live-writer', 'write live');
    await model.waitForRequests(1);
    expect((await service.runWith(live, 'RUNNING')).currentStepId).not.toBeNull();
    model.open();
    await service.runWith(live, 'COMPLETED');
    expect(readFileSync(join(service.workspaceDir, LIVE_WRITE.path), 'utf8')).toBe(LIVE_WRITE.content);
  });

  /** The run's events as the console's timeline shows them, in order. */
  const timelineTypes = async (): Promise<string[]> =>
    (await tab!.page.locator('[data-testid=timeline-event]').evaluateAll((items) => items.map((item) => item.getAttribute('data-type')))) as string[];

  it('starts a run from the console and watches it complete LIVE: run-status goes RUNNING -> COMPLETED on the same page, no reload; the timeline shows its steps, events and effects', async () => {
    model.hold();
    const requestsBefore = model.received();
    tab = await openConsoleTab(browser, service);
    await tab.go('#/runs');
    await tab.signIn(service.keys.operator);
    const { page } = tab;
    await page.getByTestId('start-submit').waitFor({ timeout: UI_TIMEOUT_MS });
    await page.locator('[data-testid=start-agent] option[value="live-writer"]').waitFor({ state: 'attached', timeout: UI_TIMEOUT_MS });
    await page.getByTestId('start-agent').selectOption('live-writer');
    await page.getByTestId('start-input').fill('write live, from the console');
    await page.getByTestId('start-submit').click();
    await page.waitForURL(/#\/runs\/[^/]+$/, { timeout: UI_TIMEOUT_MS });
    const runId = decodeURIComponent(new URL(page.url()).hash.replace(/^#\/runs\//, ''));
    expect(runId).not.toBe('');

    // The page is at the run before the run can complete: the model holds its first answer.
    await model.waitForRequests(requestsBefore + 1);
    await page.locator('[data-testid=run-status][data-status=RUNNING]').waitFor({ timeout: UI_TIMEOUT_MS });
    await page.locator('[data-testid=live-indicator][data-live=true]').waitFor({ timeout: UI_TIMEOUT_MS });
    expect((await service.as(service.keys.operator).get<RunStatusRow>(`/runs/${runId}`)).body).toMatchObject({ agent: 'live-writer', status: 'RUNNING' });
    // A marker on the page's window, and a count of full page loads: a reload would lose the one and add to the other.
    await page.evaluate(() => void ((globalThis as unknown as Record<string, unknown>).__liveMarker = 'still here'));
    let loads = 0;
    page.on('load', () => void (loads += 1));
    const url = page.url();

    model.open();
    await page.locator('[data-testid=run-status][data-status=COMPLETED]').waitFor({ timeout: UI_TIMEOUT_MS });
    expect((await page.getByTestId('run-status').textContent())?.trim()).toBe('COMPLETED');
    expect(await page.evaluate(() => (globalThis as unknown as Record<string, unknown>).__liveMarker)).toBe('still here');
    expect(loads).toBe(0);
    expect(page.url()).toBe(url);

    // The timeline, live as well: model step, the write, the model's answer, the audit records.
    await page.locator('[data-testid=timeline-event][data-type=RunCompleted]').waitFor({ timeout: UI_TIMEOUT_MS });
    await page.locator('[data-testid=timeline-event][data-type=AuditRecorded]').first().waitFor({ timeout: UI_TIMEOUT_MS });
    const types = await timelineTypes();
    for (const type of ['RunRequested', 'StepStarted', 'ToolExecuted', 'RunCompleted', 'AuditRecorded']) expect(types).toContain(type);
    expect(types.indexOf('StepStarted')).toBeLessThan(types.indexOf('RunCompleted'));
    expect(await page.getByTestId('effect-badge').allTextContents()).toEqual(expect.arrayContaining([expect.stringContaining('IDEMPOTENT_WRITE')]));
    expect(await page.getByTestId('in-flight-write').count()).toBe(0);
    expect(await page.getByTestId('cancel-run').count()).toBe(0); // settled: nothing to cancel
    expect(await page.getByTestId('run-reason').textContent()).toContain('COMPLETED');

    const row = await service.runWith(runId, 'COMPLETED');
    expect(row).toMatchObject({ agent: 'live-writer', reason: 'COMPLETED' });
    expect(readFileSync(join(service.workspaceDir, LIVE_WRITE.path), 'utf8')).toBe(LIVE_WRITE.content);
    await tab.screenshot('run-timeline');
    // The run page reads the row and steps only once the run's stream has brought its events, a few hundred ms
    // after the start; a read model slower than that (a loaded machine) still answers 404, which the page expects
    // (the stream's next events read again), but Chromium logs each as a console error.
    const notYetInReadModel = new RegExp(`status of 404 \\(Not Found\\) \\(${escapeRegExp(`${service.baseUrl}/runs/${encodeURIComponent(runId)}`)}(/steps)?\\)$`);
    tab.expectNoProblems([notYetInReadModel]);
  });

  it('the runs list: rows with their status, live as runs start; filters by status, agent and reason; the next page', async () => {
    // 26 more scribe runs: with the first test's, more than a page of 25. Then a run that waits, the newest.
    const scribes = await Promise.all(Array.from({ length: 26 }, (_, i) => service.startRun('scribe', `note ${i}`)));
    await Promise.all(scribes.map((runId) => service.runWith(runId, 'COMPLETED', 30_000)));
    const waiting = await service.startRun('approver', 'log it later');
    await service.runWith(waiting, 'WAITING_FOR_APPROVAL');
    tab = await openConsoleTab(browser, service);
    await tab.go('#/runs');
    await tab.signIn(service.keys.operator);
    const { page } = tab;
    const rows = page.locator('[data-testid=run-row]');
    /**
     * Sets a text filter and commits it (input, then change) in ONE step in the page: typed key by key and committed
     * with Tab, a live refresh landing in between resets the text (see the known-bug test below).
     */
    const setFilter = (testId: string, value: string) =>
      page.getByTestId(testId).evaluate((input, text) => {
        const element = input as unknown as { value: string; dispatchEvent(event: unknown): boolean };
        const EventClass = (globalThis as unknown as { Event: new (type: string, init: { bubbles: boolean }) => unknown }).Event;
        element.value = text;
        element.dispatchEvent(new EventClass('input', { bubbles: true }));
        element.dispatchEvent(new EventClass('change', { bubbles: true }));
      }, value);
    /** Polls the rows shown until `accept` holds; returns them. */
    const shown = async (accept: (all: Array<{ id: string; status: string; text: string }>) => boolean, what: string) => {
      let last: Array<{ id: string; status: string; text: string }> = [];
      try {
        return await eventually(
          async () => {
            last = (await rows.evaluateAll((items) =>
              items.map((item) => ({ id: item.getAttribute('data-run-id'), status: item.getAttribute('data-status'), text: item.textContent ?? '' })),
            )) as Array<{ id: string; status: string; text: string }>;
            return accept(last) ? last : undefined;
          },
          `the runs list to show ${what}`,
          UI_TIMEOUT_MS,
        );
      } catch (error) {
        const filters = await Promise.all(['filter-status', 'filter-agent', 'filter-reason'].map((id) => page.getByTestId(id).inputValue()));
        throw new Error(`${String(error)}; filters ${JSON.stringify(filters)}; ${last.length} rows shown: ${JSON.stringify(last.map((r) => `${r.status} ${r.text.slice(0, 80)}`))}`);
      }
    };
    await page.locator(`[data-testid=run-row][data-run-id="${waiting}"][data-status=WAITING_FOR_APPROVAL]`).waitFor({ timeout: UI_TIMEOUT_MS });
    await page.locator('[data-testid=live-indicator][data-live=true]').waitFor({ timeout: UI_TIMEOUT_MS });

    // Live: a run started elsewhere appears, then settles, without a reload.
    await page.evaluate(() => void ((globalThis as unknown as Record<string, unknown>).__listMarker = 1));
    const fresh = await service.startRun('scribe', 'started while the list is open');
    await page.locator(`[data-testid=run-row][data-run-id="${fresh}"][data-status=COMPLETED]`).waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await page.evaluate(() => (globalThis as unknown as Record<string, unknown>).__listMarker)).toBe(1);

    // Status.
    await page.getByTestId('filter-status').selectOption('WAITING_FOR_APPROVAL');
    await shown((all) => all.length === 2 && all.every((row) => [waiting, stillPending].includes(row.id) && row.status === 'WAITING_FOR_APPROVAL'), 'the two waiting runs only');
    await page.getByTestId('filter-status').selectOption('');

    // Agent.
    await setFilter('filter-agent', 'live-writer');
    await shown((all) => all.length >= 1 && all.every((row) => row.text.includes('live-writer')), "live-writer's runs only");
    expect(await page.locator(`[data-testid=run-row][data-run-id="${waiting}"]`).count()).toBe(0);

    // Agent and the next page: 28 scribe runs, 25 a page.
    await setFilter('filter-agent', 'scribe');
    await page.locator(`[data-testid=run-row][data-run-id="${fresh}"]`).waitFor({ timeout: UI_TIMEOUT_MS });
    const firstPage = (await shown((all) => all.length === 25 && all.every((row) => row.text.includes('scribe')), 'a first page of 25 scribe runs')).map((row) => row.id);
    await page.getByTestId('runs-next-page').click();
    const secondPage = (await shown((all) => all.length === 3, 'a second page of 3')).map((row) => row.id);
    expect(secondPage.filter((id) => firstPage.includes(id))).toEqual([]);
    expect(new Set([...firstPage, ...secondPage]).size).toBe(28);
    expect((await shown(() => true, 'rows')).every((row) => row.status === 'COMPLETED')).toBe(true);

    // Reason.
    await setFilter('filter-agent', '');
    await setFilter('filter-reason', 'COMPLETED');
    await page.locator(`[data-testid=run-row][data-run-id="${fresh}"]`).waitFor({ timeout: UI_TIMEOUT_MS });
    await shown((all) => all.length > 0 && all.every((row) => row.status === 'COMPLETED'), 'completed runs only');
    expect(await page.locator(`[data-testid=run-row][data-run-id="${waiting}"]`).count()).toBe(0);

    // Time (requested at or after): none a minute from now, every run since an hour ago. datetime-local is local time.
    await setFilter('filter-reason', '');
    const localTime = (ms: number) => new Date(ms - new Date(ms).getTimezoneOffset() * 60_000).toISOString().slice(0, 19);
    await setFilter('filter-since', localTime(Date.now() + 60_000));
    await page.locator('p[data-testid=runs-table]').waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await rows.count()).toBe(0);
    await setFilter('filter-since', localTime(Date.now() - 3_600_000));
    await page.locator(`[data-testid=run-row][data-run-id="${waiting}"]`).waitFor({ timeout: UI_TIMEOUT_MS });

    // Back to every run, for the README's screenshot.
    await setFilter('filter-since', '');
    await page.locator(`[data-testid=run-row][data-run-id="${waiting}"]`).waitFor({ timeout: UI_TIMEOUT_MS });
    await tab.screenshot('runs');
    tab.expectNoProblems();
  });

  // A regression test: the text filters once were controlled by the committed filter, so any re-render of the page
  // (a live refresh, another filter) that landed while a person typed wiped what they typed. They keep their own
  // draft now, applied after a pause in typing.
  it('text typed in filter-agent survives a re-render of the runs list, is applied after a pause in typing, and the list stays live', async () => {
    tab = await openConsoleTab(browser, service);
    await tab.go('#/runs');
    await tab.signIn(service.keys.operator);
    const { page } = tab;
    await page.locator('[data-testid=live-indicator][data-live=true]').waitFor({ timeout: UI_TIMEOUT_MS });
    await page.getByTestId('filter-agent').click();
    await page.keyboard.type('scri');
    // Another filter changes while the text is typed: the page renders again (with the old code, the text was gone).
    await page.getByTestId('filter-status').selectOption('COMPLETED');
    expect(await page.getByTestId('filter-agent').inputValue()).toBe('scri');
    await page.getByTestId('filter-agent').click();
    await page.keyboard.press('End');
    await page.keyboard.type('be');
    // No Enter, no blur: the pause applies it (the filter is an exact agent name).
    const onlyScribe = async () => {
      const texts = await page.locator('[data-testid=run-row]').allTextContents();
      return texts.length > 0 && texts.every((text) => text.includes('scribe') && text.includes('COMPLETED')) ? true : undefined;
    };
    await eventually(onlyScribe, "completed scribe runs only", UI_TIMEOUT_MS);
    expect(await page.getByTestId('filter-agent').inputValue()).toBe('scribe');
    // Live with the filters in place: a scribe run started elsewhere shows up, completed, without a reload.
    const fresh = await service.startRun('scribe', 'started while the list is filtered');
    await page.locator(`[data-testid=run-row][data-run-id="${fresh}"][data-status=COMPLETED]`).waitFor({ timeout: UI_TIMEOUT_MS });
    await eventually(onlyScribe, "completed scribe runs only, the new one included", UI_TIMEOUT_MS);
    expect(await page.getByTestId('filter-agent').inputValue()).toBe('scribe');
    tab.expectNoProblems();
  });

  it('approves a pending write from the approvals inbox: the row becomes approved, the run completes (API and console), the append ran once', async () => {
    const runId = await service.startRun('approver', 'log it, once approved');
    await service.runWith(runId, 'WAITING_FOR_APPROVAL');
    await pendingApproval(runId);
    tab = await openConsoleTab(browser, service);
    await tab.go('#/approvals');
    await tab.signIn(service.keys.operator);
    const { page } = tab;
    await tab.go('#/approvals');
    const row = page.locator(`[data-testid=approval-row][data-run-id="${runId}"]`);
    await page.locator(`[data-testid=approval-row][data-run-id="${runId}"][data-state=pending]`).waitFor({ timeout: UI_TIMEOUT_MS });
    await page.locator(`[data-testid=approval-row][data-run-id="${stillPending}"][data-state=pending]`).waitFor({ timeout: UI_TIMEOUT_MS });
    await tab.screenshot('approvals');
    expect(existsSync(join(service.workspaceDir, 'approved.log'))).toBe(false);

    await row.getByTestId('approve').click();
    // The inbox lists the pending requests by default (filter-approval-state): the decided request leaves that view
    // at once; listed with every state, its row shows it approved.
    await page.locator(`[data-testid=approval-row][data-run-id="${runId}"][data-state=pending]`).waitFor({ state: 'detached', timeout: UI_TIMEOUT_MS });
    if ((await row.count()) === 0) await page.getByTestId('filter-approval-state').selectOption('');
    await page.locator(`[data-testid=approval-row][data-run-id="${runId}"][data-state=approved]`).waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await row.getByTestId('approve').count()).toBe(0);
    // The other request still waits, with its buttons.
    await page.locator(`[data-testid=approval-row][data-run-id="${stillPending}"][data-state=pending]`).getByTestId('approve').waitFor({ timeout: UI_TIMEOUT_MS });

    // Through the API: decided by the operator's key, the run completed, the append ran once.
    const decided = await service.as(service.keys.operator).get<ApprovalPage>(`/approvals?runId=${runId}`);
    expect(decided.body.approvals).toEqual([expect.objectContaining({ state: 'approved', decidedBy: 'key:operator' })]);
    await service.runWith(runId, 'COMPLETED');
    expect(readFileSync(join(service.workspaceDir, 'approved.log'), 'utf8')).toBe('approved line\n');

    // In the console: the run page.
    await tab.go(`#/runs/${encodeURIComponent(runId)}`);
    await page.locator('[data-testid=run-status][data-status=COMPLETED]').waitFor({ timeout: UI_TIMEOUT_MS });
    await page.locator('[data-testid=timeline-event][data-type=RunCompleted]').waitFor({ timeout: UI_TIMEOUT_MS });
    const types = await timelineTypes();
    expect(types).toEqual(expect.arrayContaining(['ApprovalGranted', 'ToolExecuted', 'RunCompleted']));
    expect(await page.getByTestId('effect-badge').allTextContents()).toEqual(expect.arrayContaining([expect.stringContaining('NON_IDEMPOTENT_WRITE')]));
    for (const action of ['approve-run', 'deny-run', 'cancel-run']) expect(await page.getByTestId(action).count()).toBe(0);
    tab.expectNoProblems();
  });

  it("answers a run that asks for input from its page: the question shown, the answer sent by the key, the run completes live; a key without runs:submit sees no form", async () => {
    const runId = await service.startRun('asker', 'file the report');
    await service.runWith(runId, 'WAITING_FOR_INPUT');
    tab = await openConsoleTab(browser, service);
    await tab.go(`#/runs/${encodeURIComponent(runId)}`);
    await tab.signIn(service.keys.auditor);
    await tab.page.locator('[data-testid=run-status][data-status=WAITING_FOR_INPUT]').waitFor({ timeout: UI_TIMEOUT_MS });
    await tab.page.locator('[data-testid=timeline-event][data-type=InputRequested]').waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await tab.page.getByTestId('input-answer').count()).toBe(0); // the auditor may not submit
    tab.expectNoProblems();
    await tab.close();

    tab = await openConsoleTab(browser, service);
    await tab.go(`#/runs/${encodeURIComponent(runId)}`);
    await tab.signIn(service.keys.operator);
    const { page } = tab;
    await page.getByTestId('input-question').filter({ hasText: 'Which report should I file?' }).waitFor({ timeout: UI_TIMEOUT_MS });
    await page.evaluate(() => void ((globalThis as unknown as Record<string, unknown>).__inputMarker = 1));
    await page.getByTestId('input-answer').fill('the quarterly one');
    await page.getByTestId('submit-input').click();
    await page.locator('[data-testid=run-status][data-status=COMPLETED]').waitFor({ timeout: UI_TIMEOUT_MS });
    await page.locator('[data-testid=timeline-event][data-type=InputSubmitted]').waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await page.evaluate(() => (globalThis as unknown as Record<string, unknown>).__inputMarker)).toBe(1);
    expect(await page.getByTestId('input-answer').count()).toBe(0);

    // The steps read model follows the store a little behind the page (which follows the run's stream).
    const asked = await eventually(async () => {
      const steps = await service.as(service.keys.operator).get<{ steps: Array<{ toolName: string | null; outcome: string | null }> }>(`/runs/${runId}/steps`);
      return steps.body.steps?.find((step) => step.toolName === 'user.ask' && step.outcome !== null);
    }, 'the user.ask step, settled, in the steps read model', UI_TIMEOUT_MS);
    expect(asked).toMatchObject({ toolName: 'user.ask', outcome: 'succeeded' });
    const submitted = await page.locator('[data-testid=timeline-event][data-type=InputSubmitted]').textContent();
    expect(submitted).toContain('operator');
    expect(submitted).toContain('the quarterly one');
    tab.expectNoProblems();
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
