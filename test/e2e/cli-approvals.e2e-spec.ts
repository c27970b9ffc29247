/**
 * The CLI's approval and input verbs against a running service: the service
 * as a child process with agents of this file (a write that is not
 * pre-approved, a tool that asks the user), and `agent-ledger` as child
 * processes: `approvals list`, `runs get` of a waiting run, `runs approve`,
 * `runs deny`, `runs input`, and the exit code of a refused decision.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CliResult } from './support/cli-process';
import { printedTypes, runCliProcess } from './support/cli-process';
import type { HttpService } from './support/http-service';
import { eventually, startHttpService } from './support/http-service';
import { scaled } from '../support/time-scale';

jest.setTimeout(scaled(120_000));

/**
 * `logger`: files.append (NON_IDEMPOTENT_WRITE) is not pre-approved, so each
 * run waits for a person; a denial ends the run (onDenial: endRun, the default).
 * `asker`: user.ask waits for the user's answer, then the run completes.
 */
const AGENTS_YAML = `agents:
  - name: logger
    instructions: Log one line.
    tools: [files.append]
    maxIterations: 3
    provider:
      type: scripted
      script:
        - toolCalls:
            - tool: files.append
              arguments: { path: approved.log, content: "approved line\\n" }
        - final: logged
  - name: asker
    instructions: Ask which file to read.
    tools: [user.ask]
    maxIterations: 3
    provider:
      type: scripted
      script:
        - toolCalls:
            - tool: user.ask
              arguments: { question: Which file should I read? }
        - final: thanks for the answer
`;

function expectExit(result: CliResult, code: number): void {
  if (result.code !== code) throw new Error(`expected exit ${code}, got ${result.code}\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`);
}

describe('agent-ledger CLI: approvals and input against the service (e2e)', () => {
  let service: HttpService;
  let env: Record<string, string>;

  beforeAll(async () => {
    service = await startHttpService({ agentsYaml: AGENTS_YAML });
    env = { AGENT_LEDGER_URL: service.baseUrl };
  });

  afterAll(async () => {
    await service?.stop();
  });

  /** Starts a queued run with the CLI; returns its id. */
  async function start(agent: string): Promise<string> {
    const started = await runCliProcess(['runs', 'start', '--agent', agent, '--input', 'go', '-q'], env);
    expectExit(started, 0);
    return started.stdout.trim();
  }

  /** Polls `agent-ledger runs get --json` until the run has `status` (15 s deadline); returns the row. */
  async function statusOf(runId: string, status: string): Promise<Record<string, unknown>> {
    return eventually(
      async () => {
        const got = await runCliProcess(['runs', 'get', runId, '--json'], env);
        if (got.code !== 0) return undefined;
        const row = JSON.parse(got.stdout) as Record<string, unknown>;
        return row.status === status ? row : undefined;
      },
      `run ${runId} to be ${status}`,
      15_000,
    );
  }

  it('a run waits for approval: approvals list shows it, runs get shows the call, runs approve completes it and the write happens once; a second approve is refused (exit 4)', async () => {
    const runId = await start('logger');
    await statusOf(runId, 'WAITING_FOR_APPROVAL');

    const [pending, pendingJson, got, listed] = await Promise.all([
      runCliProcess(['approvals', 'list', '--state', 'pending', '--run-id', runId], env),
      runCliProcess(['approvals', 'list', '--state', 'pending', '--agent', 'logger', '--json'], env),
      runCliProcess(['runs', 'get', runId], env),
      runCliProcess(['runs', 'list', '--status', 'WAITING_FOR_APPROVAL', '--agent', 'logger'], env),
    ]);
    expectExit(listed, 0);
    expect(listed.stdout).toMatch(new RegExp(`^${runId}\\s+logger\\s+queued\\s+WAITING_FOR_APPROVAL\\s.*\\sapproval: files\\.append \\(NON_IDEMPOTENT_WRITE\\)$`, 'm'));
    expectExit(pending, 0);
    // When and why: the request's time and age, the call with its arguments, and the reason it waits for a person.
    expect(pending.stdout.split('\n').slice(0, 5)).toEqual([
      `${runId}/r0: pending, run ${runId}, agent logger, model round 0`,
      expect.stringMatching(/^ {2}requested {2}\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z \(\d+ (s|min) ago\)$/),
      '  call 0     files.append (NON_IDEMPOTENT_WRITE) {"path":"approved.log","content":"approved line\\n"}',
      '    why      a NON_IDEMPOTENT_WRITE that logger does not pre-approve (approvals.preApproved in its agents file)',
      '  on denial  endRun (the run ends FAILED, APPROVAL_DENIED)',
    ]);
    expectExit(pendingJson, 0);
    const page = JSON.parse(pendingJson.stdout) as { approvals: { runId: string; calls: { toolName: string; arguments: unknown; requirement: string }[] }[] };
    expect(page.approvals.find((a) => a.runId === runId)?.calls).toEqual([
      expect.objectContaining({ toolName: 'files.append', arguments: { path: 'approved.log', content: 'approved line\n' }, requirement: 'write' }),
    ]);
    expectExit(got, 0);
    expect(got.stdout).toMatch(/^status\s+WAITING_FOR_APPROVAL$/m);
    expect(got.stdout).toMatch(/^r0\/t0\s+files\.append\s+NON_IDEMPOTENT_WRITE\s+write\s+\{"path":"approved\.log","content":"approved line\\n"\}$/m);
    expect(got.stdout).toContain(`agent-ledger runs approve ${runId}`);

    const approved = await runCliProcess(['runs', 'approve', runId, '--reason', 'checked the log line', '--round', '0'], env);
    expectExit(approved, 0);
    expect(approved.stdout).toMatch(new RegExp(`^Run ${runId} approved: status QUEUED\\.$`, 'm'));

    const completed = await statusOf(runId, 'COMPLETED');
    expect(completed).toMatchObject({ reason: 'COMPLETED' });
    expect(readFileSync(join(service.workspaceDir, 'approved.log'), 'utf8')).toBe('approved line\n');

    const followed = await runCliProcess(['events', 'follow', runId], env);
    expectExit(followed, 0);
    expect(printedTypes(followed.stdout)).toEqual(expect.arrayContaining(['ApprovalRequested', 'ApprovalGranted', 'ToolExecuted', 'RunCompleted']));
    expect(followed.stdout).toMatch(/ApprovalRequested round=0 calls=files\.append\(NON_IDEMPOTENT_WRITE\) onDenial=endRun/);
    expect(followed.stdout).toMatch(/ApprovalGranted round=0 decidedBy=\S+ reason="checked the log line"/);

    const again = await runCliProcess(['runs', 'approve', runId], env);
    expectExit(again, 4);
    expect(again.stderr).toMatch(/agent-ledger runs approve: refused: 409 (RUN_NOT_WAITING_FOR_APPROVAL|RUN_ALREADY_SETTLED)/);

    const approvedList = await runCliProcess(['approvals', 'list', '--state', 'approved', '--run-id', runId], env);
    expectExit(approvedList, 0);
    expect(approvedList.stdout.split('\n')[0]).toBe(`${runId}/r0: approved, run ${runId}, agent logger, model round 0`);
    expect(approvedList.stdout).toMatch(/^ {2}decided {4}approved by \S+ \d{4}-\d\d-\d\dT[\d:.]+Z \(\d+ (s|min) ago\): "checked the log line"$/m);
  });

  it('runs deny ends the run FAILED APPROVAL_DENIED (onDenial: endRun) without the write; another round is refused first', async () => {
    const runId = await start('logger');
    await statusOf(runId, 'WAITING_FOR_APPROVAL');

    const wrongRound = await runCliProcess(['runs', 'deny', runId, '--round', '3'], env);
    expectExit(wrongRound, 4);
    expect(wrongRound.stderr).toContain('409 APPROVAL_ROUND_MISMATCH');

    const denied = await runCliProcess(['runs', 'deny', runId, '--reason', 'not today'], env);
    expectExit(denied, 0);
    expect(denied.stdout.trim()).toBe(`Run ${runId} denied: status FAILED, reason APPROVAL_DENIED.`);

    const failed = await statusOf(runId, 'FAILED');
    expect(failed).toMatchObject({ reason: 'APPROVAL_DENIED' });
    const deniedList = await runCliProcess(['approvals', 'list', '--state', 'denied', '--run-id', runId], env);
    expectExit(deniedList, 0);
    expect(deniedList.stdout.split('\n')[0]).toBe(`${runId}/r0: denied, run ${runId}, agent logger, model round 0`);
    expect(deniedList.stdout).toMatch(/^ {2}decided {4}denied by \S+ \d{4}-\d\d-\d\dT[\d:.]+Z \(\d+ (s|min) ago\): "not today"$/m);
    // Only the first test's approved line: the denied call never executed.
    expect(readFileSync(join(service.workspaceDir, 'approved.log'), 'utf8')).toBe('approved line\n');

    const settled = await runCliProcess(['runs', 'approve', runId], env);
    expectExit(settled, 4);
    expect(settled.stderr).toMatch(/409 (RUN_ALREADY_SETTLED|RUN_NOT_WAITING_FOR_APPROVAL)/);
  });

  it('runs input answers a run waiting for input (user.ask); it completes. Not JSON is exit 2; a run not waiting is exit 4', async () => {
    const runId = await start('asker');
    await statusOf(runId, 'WAITING_FOR_INPUT');

    const got = await runCliProcess(['runs', 'get', runId], env);
    expectExit(got, 0);
    expect(got.stdout).toMatch(/^status\s+WAITING_FOR_INPUT$/m);
    expect(got.stdout).toContain('Which file should I read?');
    expect(got.stdout).toContain(`agent-ledger runs input ${runId} --input`);

    const notJson = await runCliProcess(['runs', 'input', runId, '--input', 'notes.txt'], env);
    expectExit(notJson, 2);
    expect(notJson.stderr).toContain('--input must be JSON');

    const submitted = await runCliProcess(['runs', 'input', runId, '--input', '"notes.txt"'], env);
    expectExit(submitted, 0);
    expect(submitted.stdout).toMatch(new RegExp(`^Run ${runId}: input submitted; status QUEUED\\.$`, 'm'));

    await statusOf(runId, 'COMPLETED');
    const followed = await runCliProcess(['events', 'follow', runId], env);
    expectExit(followed, 0);
    expect(followed.stdout).toMatch(/InputRequested step=r0\/t0 tool=user\.ask prompt="Which file should I read\?"/);
    expect(followed.stdout).toMatch(/InputSubmitted step=r0\/t0 submittedBy=\S+ input="notes\.txt"/);
    expect(followed.stdout).toMatch(/RunCompleted answer="thanks for the answer"/);

    const again = await runCliProcess(['runs', 'input', runId, '--input', '"again"'], env);
    expectExit(again, 4);
    expect(again.stderr).toMatch(/refused: 409 (RUN_NOT_WAITING_FOR_INPUT|RUN_ALREADY_SETTLED)/);
  });
});
