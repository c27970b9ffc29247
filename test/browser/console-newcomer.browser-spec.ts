/**
 * What a newcomer looks for on the console, in Chromium, against the built
 * service: a run's page shows the call it asks to approve with its arguments
 * (pretty JSON), the run's input and its final answer; the projections page
 * lists a rebuild made from the CLI (`agent-ledger projections rebuild`, the
 * built CLI as a process on the service's files), beside one made from the
 * console.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { ROOT } from './support/built-service';
import { launchChromium } from './support/chromium';
import type { ConsoleTab } from './support/console-page';
import { openConsoleTab, UI_TIMEOUT_MS } from './support/console-page';
import type { ConsoleService } from './support/console-service';
import { startConsoleService } from './support/console-service';
import { scaled } from '../support/time-scale';

jest.setTimeout(scaled(120_000));

/** The package's bin: the launcher of the built CLI. */
const BIN = join(ROOT, 'apps', 'agent-ledger', 'bin', 'agent-ledger.js');

function runBuiltCli(args: readonly string[], env: Readonly<Record<string, string>>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { cwd: ROOT, env: { ...process.env, EVENTSTORE_CONNECTION_STRING: '', ...env }, timeout: scaled(60_000) }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
      resolve({ code, stdout, stderr });
    });
  });
}

describe('the console: what a run asks and answers, and rebuilds made elsewhere (browser)', () => {
  let service: ConsoleService;
  let browser: Browser;
  let tab: ConsoleTab | undefined;

  beforeAll(async () => {
    service = await startConsoleService();
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

  it("a waiting run's page shows the call it asks to approve with its arguments as pretty JSON, and the run's input; once approved, its final answer", async () => {
    const input = 'log the line, please';
    const runId = await service.startRun('approver', input);
    await service.runWith(runId, 'WAITING_FOR_APPROVAL');
    tab = await openConsoleTab(browser, service);
    await tab.go(`#/runs/${encodeURIComponent(runId)}`);
    await tab.signIn(service.keys.operator);
    const { page } = tab;
    await tab.go(`#/runs/${encodeURIComponent(runId)}`);

    const panel = page.getByTestId('approval-panel');
    await panel.waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await panel.getAttribute('data-round')).toBe('0');
    const call = panel.locator('[data-testid=approval-call][data-tool="files.append"]');
    expect(await call.getByTestId('effect-badge').textContent()).toBe('NON_IDEMPOTENT_WRITE');
    expect(await call.textContent()).toContain('a write approver does not pre-approve');
    // The arguments exactly as the model gave them, indented JSON.
    expect(await call.getByTestId('approval-arguments').textContent()).toBe(JSON.stringify({ path: 'approved.log', content: 'approved line\n' }, null, 2));
    expect(await page.getByTestId('run-input').textContent()).toBe(input);
    // Who started it: the key that called POST /runs, as the service recorded it.
    expect(await page.getByTestId('run-started-by').textContent()).toBe(`key:${service.keys.operator.entry.id}`);
    expect(await page.getByTestId('run-answer').count()).toBe(0);

    // The auditor reads the same panel, without the buttons.
    const auditorTab = await openConsoleTab(browser, service);
    try {
      await auditorTab.go(`#/runs/${encodeURIComponent(runId)}`);
      await auditorTab.signIn(service.keys.auditor);
      await auditorTab.go(`#/runs/${encodeURIComponent(runId)}`);
      await auditorTab.page.getByTestId('approval-arguments').waitFor({ timeout: UI_TIMEOUT_MS });
      expect(await auditorTab.page.getByTestId('approve-run').count()).toBe(0);
      auditorTab.expectNoProblems();
    } finally {
      await auditorTab.close();
    }

    await page.getByTestId('approve-run').click();
    await page.locator('[data-testid=run-status][data-status=COMPLETED]').waitFor({ timeout: UI_TIMEOUT_MS });
    await page.getByTestId('run-answer').waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await page.getByTestId('run-answer').textContent()).toBe('logged after approval');
    await page.getByTestId('approval-panel').waitFor({ state: 'detached', timeout: UI_TIMEOUT_MS });
    expect(readFileSync(join(service.workspaceDir, 'approved.log'), 'utf8')).toBe('approved line\n');
    tab.expectNoProblems();
  });

  it('a JSON input is shown as indented JSON', async () => {
    const started = await service.as(service.keys.operator).post<{ runId: string }>('/runs', { agent: 'scribe', input: { task: 'note', lines: [1, 2] } });
    expect(started.status).toBe(202);
    const runId = started.body.runId;
    await service.runWith(runId, 'COMPLETED');
    tab = await openConsoleTab(browser, service);
    await tab.go(`#/runs/${encodeURIComponent(runId)}`);
    await tab.signIn(service.keys.operator);
    await tab.go(`#/runs/${encodeURIComponent(runId)}`);
    const { page } = tab;
    await page.getByTestId('run-answer').waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await page.getByTestId('run-input').textContent()).toBe(JSON.stringify({ task: 'note', lines: [1, 2] }, null, 2));
    expect(await page.getByTestId('run-answer').textContent()).toBe('the note is written');
    tab.expectNoProblems();
  });

  it('the projections page lists a rebuild made from the CLI (cli:<user>@<host>) beside one made from the console (operator)', async () => {
    tab = await openConsoleTab(browser, service);
    await tab.go('#/projections');
    await tab.signIn(service.keys.operator);
    await tab.go('#/projections');
    const { page } = tab;
    await page.getByTestId('rebuild-history-empty').waitFor({ timeout: UI_TIMEOUT_MS });
    await page.locator('[data-testid=rebuild-progress][data-state=idle]').waitFor({ timeout: UI_TIMEOUT_MS });

    // The CLI, as a process, on the service's files while it runs.
    const rebuilt = await runBuiltCli(['projections', 'rebuild', 'runStatus'], { AGENT_LEDGER_DATA_DIR: service.dataDir, AUDIT_STORE_PATH: service.auditStorePath });
    expect(rebuilt).toMatchObject({ code: 0, stderr: '' });
    expect(rebuilt.stdout).toMatch(/^Rebuilt runStatus: \d+ events/m);

    // The page refreshes by itself (every 2 s): the CLI's rebuild appears, asked by cli:<user>@<host>.
    const cliRow = page.locator('[data-testid=rebuild-record][data-projections=runStatus]');
    await cliRow.waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await cliRow.getAttribute('data-requested-by')).toMatch(/^cli:[^@\s]+@\S+$/);
    // This service did not rebuild: its own state is still idle.
    expect(await page.getByTestId('rebuild-progress').getAttribute('data-state')).toBe('idle');

    // A rebuild from the console is listed above it, asked by the key.
    await page.getByTestId('rebuild').click();
    await page.locator('[data-testid=rebuild-progress][data-state=succeeded]').waitFor({ timeout: UI_TIMEOUT_MS });
    await page.locator('[data-testid=rebuild-record]').nth(1).waitFor({ timeout: UI_TIMEOUT_MS });
    const rows = await page.locator('[data-testid=rebuild-record]').evaluateAll((items) => items.map((item) => [item.getAttribute('data-requested-by'), item.getAttribute('data-projections')]));
    expect(rows).toEqual([
      ['key:operator', 'runStatus,steps,auditReview,approvals'],
      [expect.stringMatching(/^cli:/), 'runStatus'],
    ]);
    tab.expectNoProblems();
  });
});
