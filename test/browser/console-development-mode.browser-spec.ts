/**
 * The console in the development mode (no authentication, loopback only):
 * it asks for no key, says which mode runs, and offers every view.
 */
import type { Browser } from 'playwright-core';
import { launchChromium } from './support/chromium';
import type { ConsoleTab } from './support/console-page';
import { openConsoleTab, UI_TIMEOUT_MS } from './support/console-page';
import type { ConsoleService } from './support/console-service';
import { startConsoleService } from './support/console-service';
import { scaled } from '../support/time-scale';

jest.setTimeout(scaled(120_000));

describe('the console in the development mode (browser)', () => {
  let service: ConsoleService;
  let browser: Browser;
  let tab: ConsoleTab | undefined;

  beforeAll(async () => {
    service = await startConsoleService({ env: { AUTH_MODE: 'disabled-on-loopback' } });
    browser = await launchChromium();
  });

  afterAll(async () => {
    await tab?.close();
    await browser?.close();
    await service?.stop();
  });

  it('signs in by itself (no key asked, none stored), says so, shows every view, and lists a run started from it', async () => {
    const runId = await service.startRun('scribe', 'in the development mode');
    await service.runWith(runId, 'COMPLETED');
    tab = await openConsoleTab(browser, service);
    await tab.go('#/runs');
    const { page } = tab;
    await page.getByTestId('signed-in-as').waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await page.getByTestId('signed-in-as').textContent()).toContain('development mode');
    expect(await page.getByTestId('api-key').count()).toBe(0);
    for (const view of ['runs', 'approvals', 'audit', 'projections']) expect(await page.getByTestId(`nav-${view}`).count()).toBe(1);
    await page.locator(`[data-testid=run-row][data-run-id="${runId}"][data-status=COMPLETED]`).waitFor({ timeout: UI_TIMEOUT_MS });
    const storage = await tab.storage();
    expect(Object.keys(storage.session)).toEqual([]);
    expect(Object.keys(storage.local)).toEqual([]);
    expect(tab.requestUrls().some((url) => url.endsWith('/ready'))).toBe(true);
    tab.expectNoProblems();
  });
});
