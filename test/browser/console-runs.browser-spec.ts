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
import type { ApprovalPage } from '@agent-ledger/projections';
import { eventually } from '../e2e/support/http-service';
import { launchChromium } from './support/chromium';
import type { ConsoleService } from './support/console-service';
import { LIVE_WRITE, startConsoleService } from './support/console-service';
import type { GatedModelServer } from './support/gated-model';
import { startGatedModelServer } from './support/gated-model';

jest.setTimeout(120_000);

describe('the console: runs and approvals (browser)', () => {
  let model: GatedModelServer;
  let service: ConsoleService;
  let browser: Browser;

  beforeAll(async () => {
    model = await startGatedModelServer(LIVE_WRITE);
    service = await startConsoleService({ modelBaseUrl: model.baseUrl });
    browser = await launchChromium();
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
});
