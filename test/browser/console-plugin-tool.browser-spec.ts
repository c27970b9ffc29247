/**
 * A tool of a plugin through the service, the console and the CLI: the BUILT
 * service started with a plugin file of a temporary folder
 * (`AGENT_LEDGER_PLUGINS`; the function form, so that it requires nothing
 * but Node's own modules), whose agent writes through the plugin's
 * NON_IDEMPOTENT_WRITE tool with a scripted model. In Chromium: the start
 * form lists the plugin's tool with its effect, a run started there waits
 * for approval, is approved on its page and completes; its timeline shows
 * the plugin's tool call with its effect and its audit record. The client
 * (`@agent-ledger/client`) and the built CLI, as real processes, see the
 * plugin's tool with its effect, the same run completed, its step audited,
 * and the write done once.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { AgentLedgerClient } from '@agent-ledger/client';
import { ROOT } from './support/built-service';
import { launchChromium } from './support/chromium';
import type { ConsoleTab } from './support/console-page';
import { openConsoleTab, UI_TIMEOUT_MS } from './support/console-page';
import type { ConsoleService } from './support/console-service';
import { startConsoleService } from './support/console-service';
import { scaled } from '../support/time-scale';

jest.setTimeout(scaled(120_000));

const TOOL = 'journal.append';
const AGENT = 'journal-keeper';
const ENTRY = 'closed the books for November';
const BUILT_CLI = join(ROOT, 'apps/agent-ledger/dist/cli/main.js');

/**
 * The plugin: one NON_IDEMPOTENT_WRITE tool that appends a line to `journal`,
 * and one agent that calls it once (not pre-approved: a person approves it),
 * then answers. The function form receives the service's own `Tool`,
 * `ToolEffect` and `definePlugin`.
 */
function pluginSource(journal: string): string {
  return `'use strict';
const { appendFileSync } = require('node:fs');

const JOURNAL = ${JSON.stringify(journal)};

module.exports = ({ Tool, ToolEffect, definePlugin }) => {
  class JournalAppend {
    getEffect() {
      return ToolEffect.NON_IDEMPOTENT_WRITE;
    }
    async execute(args) {
      appendFileSync(JOURNAL, args.entry + '\\n');
      return { appended: args.entry };
    }
  }
  Tool({
    name: ${JSON.stringify(TOOL)},
    description: 'Appends an entry to the journal.',
    parameters: { type: 'object', properties: { entry: { type: 'string' } }, required: ['entry'], additionalProperties: false },
  })(JournalAppend);
  return definePlugin({
    tools: [JournalAppend],
    agents: [
      {
        name: ${JSON.stringify(AGENT)},
        description: 'Keeps the journal through a plugin tool.',
        instructions: 'Append the entry to the journal.',
        tools: [${JSON.stringify(TOOL)}],
        approvals: { onDenial: 'endRun' },
        maxIterations: 3,
        provider: {
          type: 'scripted',
          script: [{ toolCalls: [{ tool: ${JSON.stringify(TOOL)}, arguments: { entry: ${JSON.stringify(ENTRY)} } }] }, { final: 'the journal has the entry' }],
        },
      },
    ],
  });
};
`;
}

/** Runs the built CLI as a process, as a user does: its exit code and output. */
function runBuiltCli(args: readonly string[], env: Readonly<Record<string, string>>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BUILT_CLI, ...args], { cwd: ROOT, env: { ...process.env, ...env }, timeout: scaled(60_000) }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
      resolve({ code, stdout, stderr });
    });
  });
}

describe('the console: a plugin tool through the service, the console and the CLI (browser)', () => {
  let pluginDir: string;
  let journal: string;
  let service: ConsoleService;
  let client: AgentLedgerClient;
  let browser: Browser;
  let tab: ConsoleTab | undefined;

  beforeAll(async () => {
    pluginDir = mkdtempSync(join(tmpdir(), 'agent-ledger-plugin-'));
    journal = join(pluginDir, 'journal.log');
    const pluginFile = join(pluginDir, 'journal-plugin.js');
    writeFileSync(pluginFile, pluginSource(journal));
    service = await startConsoleService({ env: { AGENT_LEDGER_PLUGINS: pluginFile } });
    client = new AgentLedgerClient({ baseUrl: service.baseUrl, apiKey: service.keys.operator.key });
    browser = await launchChromium();
  });

  afterEach(async () => {
    await tab?.close();
    tab = undefined;
  });

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
    rmSync(pluginDir, { recursive: true, force: true });
  });

  it('the service lists the plugin agent and its tool with the declared effect (GET /agents, through the client)', async () => {
    const { agents } = await client.listAgents();
    expect(agents.find((a) => a.name === AGENT)).toMatchObject({ name: AGENT, tools: [{ name: TOOL, effect: 'NON_IDEMPOTENT_WRITE' }] });
  });

  it('a run of the plugin agent started in the console waits for approval, is approved there and completes: the timeline shows the plugin tool call with its effect and audit record; the client and the CLI show it completed', async () => {
    tab = await openConsoleTab(browser, service);
    await tab.go('#/runs');
    await tab.signIn(service.keys.operator);
    const { page } = tab;

    // The start form lists the plugin's agent, and its tool with the effect it declares in code.
    await page.locator(`[data-testid=start-agent] option[value="${AGENT}"]`).waitFor({ state: 'attached', timeout: UI_TIMEOUT_MS });
    await page.getByTestId('start-agent').selectOption(AGENT);
    const tool = page.locator(`[data-testid=agent-tool][data-tool="${TOOL}"]`);
    await tool.waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await tool.getAttribute('data-effect')).toBe('NON_IDEMPOTENT_WRITE');
    expect(await tool.getByTestId('effect-badge').textContent()).toBe('NON_IDEMPOTENT_WRITE');

    await page.getByTestId('start-input').fill('close the books');
    await page.getByTestId('start-submit').click();
    await page.waitForURL(/#\/runs\/[^/]+$/, { timeout: UI_TIMEOUT_MS });
    const runId = decodeURIComponent(new URL(page.url()).hash.replace(/^#\/runs\//, ''));
    expect(runId).not.toBe('');

    // The write is not pre-approved: the run waits for a person, and nothing is written yet.
    await page.locator('[data-testid=run-status][data-status=WAITING_FOR_APPROVAL]').waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await client.waitForSettled(runId, { timeoutMs: scaled(30_000) })).toMatchObject({ status: 'WAITING_FOR_APPROVAL' });
    const { approvals } = await client.listApprovals({ runId, state: 'pending' });
    expect(approvals[0]?.calls).toEqual([expect.objectContaining({ toolName: TOOL, effect: 'NON_IDEMPOTENT_WRITE', arguments: { entry: ENTRY }, requirement: 'write' })]);
    expect(() => readFileSync(journal)).toThrow(/ENOENT/);

    await page.getByTestId('approve-run').click();
    await page.locator('[data-testid=run-status][data-status=COMPLETED]').waitFor({ timeout: UI_TIMEOUT_MS });

    // The timeline: the plugin tool's step with its effect, executed, then its audit record (from the steps read model).
    const toolStarted = page.locator('[data-testid=timeline-event][data-type=StepStarted]', { hasText: TOOL });
    await toolStarted.waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await toolStarted.getByTestId('effect-badge').textContent()).toBe('NON_IDEMPOTENT_WRITE');
    await page.locator('[data-testid=timeline-event][data-type=ApprovalGranted]').waitFor({ timeout: UI_TIMEOUT_MS });
    const types = async () => (await page.locator('[data-testid=timeline-event]').evaluateAll((items) => items.map((item) => item.getAttribute('data-type')))) as string[];
    await page.locator('[data-testid=timeline-event][data-type=AuditRecorded]').nth(2).waitFor({ timeout: UI_TIMEOUT_MS });
    const timeline = await types();
    const executed = timeline.indexOf('ToolExecuted');
    expect(executed).toBeGreaterThan(timeline.indexOf('ApprovalGranted'));
    // The step that ended with ToolExecuted is followed by its audit record: the write's audit state is "recorded".
    expect(timeline[executed + 1]).toBe('AuditRecorded');
    expect(await page.locator('[data-testid=timeline-event][data-type=AuditNotStored]').count()).toBe(0);

    // The client: completed, the plugin's step audited, the write done once.
    expect(await client.getRun(runId)).toMatchObject({ agent: AGENT, status: 'COMPLETED', reason: 'COMPLETED', auditGaps: 0 });
    const { steps } = await client.getSteps(runId);
    expect(steps.filter((s) => s.kind === 'tool')).toEqual([
      expect.objectContaining({ toolName: TOOL, effect: 'NON_IDEMPOTENT_WRITE', outcome: 'succeeded', auditState: 'recorded', approval: 'granted', starts: 1 }),
    ]);
    expect(readFileSync(journal, 'utf8')).toBe(`${ENTRY}\n`);

    // The CLI, built, as a process: the same run, completed, and its events with the plugin tool and its effect.
    const cliEnv = { AGENT_LEDGER_URL: service.baseUrl, AGENT_LEDGER_API_KEY: service.keys.operator.key };
    const got = await runBuiltCli(['runs', 'get', runId, '--json'], cliEnv);
    expect(got).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(got.stdout)).toMatchObject({ runId, agent: AGENT, status: 'COMPLETED', reason: 'COMPLETED' });
    const listed = await runBuiltCli(['agents', 'list'], cliEnv);
    expect(listed).toMatchObject({ code: 0, stderr: '' });
    expect(listed.stdout).toMatch(new RegExp(`^${AGENT}\\s+${TOOL.replace('.', '\\.')}\\s+NON_IDEMPOTENT_WRITE\\s+code\\s+asks a person\\s+endRun$`, 'm'));
    const followed = await runBuiltCli(['events', 'follow', runId], cliEnv);
    expect(followed.code).toBe(0);
    expect(followed.stdout).toMatch(new RegExp(`^\\S+ StepStarted step=r0/t0 tool=${TOOL.replace('.', '\\.')} effect=NON_IDEMPOTENT_WRITE$`, 'm'));
    expect(followed.stdout).toMatch(/^\S+ ApprovalGranted round=0 decidedBy=key:operator$/m);
    expect(followed.stdout).toMatch(/^\S+ RunCompleted answer="the journal has the entry"$/m);

    // The run page reads the row and steps once the run's stream has events; a read model a little behind
    // answers 404 for a moment, which the page expects but Chromium logs.
    const notYetInReadModel = new RegExp(`status of 404 \\(Not Found\\) \\(${escapeRegExp(`${service.baseUrl}/runs/${encodeURIComponent(runId)}`)}(/steps)?\\)$`);
    tab.expectNoProblems([notYetInReadModel]);
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
