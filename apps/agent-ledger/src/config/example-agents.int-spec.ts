import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runStreamName } from '@agent-ledger/runtime';
import { storedEvents } from '@agent-ledger/runtime/testing';
import type { HttpTestApp } from '../http/testing/http-test-app';
import { startHttpTestApp } from '../http/testing/http-test-app';
import { scaled } from '../../../../test/support/time-scale';
import type { CliOutput } from '../cli/cli-output';
import { runCli } from '../cli/main';
import { readServiceConfig } from './service-config';
import { EXAMPLE_NOTES, prepareServiceFolders } from './service-folders';

/*
 * The example agents (config/agents.example.yaml) on a fresh data folder:
 * the service seeds the workspace's notes.txt, and every agent's answer is
 * what its run recorded, on every path (approved, denied, a file that is
 * not there).
 */

const EXAMPLE = join(__dirname, '../../../../config/agents.example.yaml');

/** The CLI's output, lines in order (standard error marked). */
function capture(): CliOutput & { lines: string[] } {
  const lines: string[] = [];
  return { lines, out: (line) => lines.push(line), err: (line) => lines.push(`stderr: ${line}`), isTTY: false };
}

type Events = Awaited<ReturnType<typeof storedEvents>>;

describe('seeding the example workspace', () => {
  let dir: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'agent-ledger-seed-'));
  });

  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const configWith = (agents: string) => readServiceConfig({ AGENT_LEDGER_DATA_DIR: dir, AGENTS_CONFIG: agents }, dir);

  it('writes notes.txt into a fresh workspace with the example agents, and says what and where', () => {
    const config = configWith(EXAMPLE);
    const lines = prepareServiceFolders(config);
    const notes = join(dir, 'workspace', 'notes.txt');
    expect(readFileSync(notes, 'utf8')).toBe(EXAMPLE_NOTES);
    expect(lines).toEqual([`Seeded the example workspace: wrote ${notes} for the example agents (file-clerk, ticket-asker); a notes.txt that exists is never overwritten`]);
  });

  it('leaves an existing notes.txt alone, on a second start and when a person wrote it, and says nothing', () => {
    const config = configWith(EXAMPLE);
    prepareServiceFolders(config);
    const notes = join(config.workspaceDir, 'notes.txt');
    writeFileSync(notes, 'mine');
    expect(prepareServiceFolders(config)).toEqual([]);
    expect(readFileSync(notes, 'utf8')).toBe('mine');
  });

  it('seeds nothing with another agents file', () => {
    const agents = join(dir, 'agents.yaml');
    writeFileSync(agents, readFileSync(EXAMPLE));
    const config = configWith(agents);
    expect(prepareServiceFolders(config)).toEqual([]);
    expect(() => readFileSync(join(config.workspaceDir, 'notes.txt'))).toThrow(/ENOENT/);
  });
});

describe('the example agents tell the truth', () => {
  let app: HttpTestApp;

  beforeAll(async () => {
    app = await startHttpTestApp({ env: { AGENTS_CONFIG: EXAMPLE, WORKER_CONCURRENCY: '1' } });
    prepareServiceFolders(app.config);
  });

  afterAll(async () => {
    await app.close();
  });

  const events = (runId: string): Promise<Events> => storedEvents(app.stores.runStore, runStreamName(runId));

  /** The run's events once one of `types` is recorded (polled with a deadline). */
  async function eventsUntil(runId: string, ...types: string[]): Promise<Events> {
    const deadline = Date.now() + scaled(20_000);
    for (;;) {
      const found = await events(runId);
      if (found.some((e) => types.includes(e.type))) return found;
      if (Date.now() > deadline) throw new Error(`run ${runId} recorded none of ${types.join(', ')}: ${found.map((e) => e.type).join(', ')}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  async function start(agent: string, input: string): Promise<string> {
    const started = await app.call('POST', '/runs', { body: { agent, input } });
    expect(started.status).toBe(202);
    return (started.body as { runId: string }).runId;
  }

  /** The results the run's tool calls recorded, by tool (the latest call of each). */
  function results(recorded: Events): Record<string, Record<string, unknown>> {
    const byTool: Record<string, Record<string, unknown>> = {};
    for (const e of recorded) if (e.type === 'ToolExecuted' && e.data.outcome === 'succeeded') byTool[String(e.data.toolName)] = e.data.result as Record<string, unknown>;
    return byTool;
  }

  /** clerk.log's content ('' before the first append). */
  function readLog(): string {
    try {
      return readFileSync(join(app.config.workspaceDir, 'clerk.log'), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '';
      throw error;
    }
  }

  const answerOf = (recorded: Events): unknown => recorded.find((e) => e.type === 'RunCompleted')?.data.finalAnswer;

  it('time-teller answers with the time clock.now recorded', async () => {
    const runId = await start('time-teller', 'What time is it?');
    const recorded = await eventsUntil(runId, 'RunCompleted', 'RunFailed');
    const iso = results(recorded)['clock.now']?.iso;
    expect(typeof iso).toBe('string');
    expect(answerOf(recorded)).toBe(`It is ${String(iso)} (UTC), by the service's clock.`);
  });

  it.each([
    ['approved', 'approve', 'succeeded'],
    ['denied', 'deny', 'denied'],
  ] as const)('file-clerk, its append %s: the report quotes the seeded notes, and the answer says what happened to the log', async (_what, decision, appendOutcome) => {
    const runId = await start('file-clerk', 'Write the report');
    await eventsUntil(runId, 'ApprovalRequested');
    const logBefore = readLog();
    const decided = await app.call('POST', `/runs/${runId}/approval`, { body: { decision, reason: 'checked' } });
    expect(decided.status).toBe(200);
    const recorded = await eventsUntil(runId, 'RunCompleted', 'RunFailed');
    const byTool = results(recorded);
    const read = byTool['files.read'];
    const written = byTool['files.write'];
    expect(read).toMatchObject({ path: 'notes.txt', content: EXAMPLE_NOTES });
    const report = readFileSync(join(app.config.workspaceDir, 'report.txt'), 'utf8');
    expect(report).toBe(`Report on notes.txt (${String(read?.bytes)} bytes), as read:\n\n${EXAMPLE_NOTES}`);
    expect(written).toMatchObject({ path: 'report.txt', bytes: Buffer.byteLength(report) });
    const append = recorded.filter((e) => e.type === 'ToolExecuted' && e.data.toolName === 'files.append');
    const log = readLog();
    if (appendOutcome === 'succeeded') {
      expect(append.map((e) => e.data.outcome)).toEqual(['succeeded']);
      expect(log).toBe(`${logBefore}report.txt written\n`);
      expect(answerOf(recorded)).toBe(`I read notes.txt (${String(read?.bytes)} bytes), wrote report.txt (${String(written?.bytes)} bytes) and logged it in clerk.log.`);
    } else {
      // Never executed: no ToolExecuted; the answer quotes what the model was told.
      expect(append).toEqual([]);
      expect(log).toBe(logBefore);
      expect(recorded.find((e) => e.type === 'ApprovalDenied')?.data).toMatchObject({ reason: 'checked', onDenial: 'tellModel' });
      expect(answerOf(recorded)).toBe(
        `I read notes.txt (${String(read?.bytes)} bytes) and wrote report.txt (${String(written?.bytes)} bytes), but did not log it in clerk.log: ` +
          'The call of files.append was denied by a person: checked; it was not executed',
      );
    }
  });

  it("runs get and events follow show each tool's result (cut at 200 characters unless --full), and the denial", async () => {
    const runId = await start('file-clerk', 'Write the report');
    await eventsUntil(runId, 'ApprovalRequested');
    await app.call('POST', `/runs/${runId}/approval`, { body: { decision: 'deny', reason: 'not now' } });
    const recorded = await eventsUntil(runId, 'RunCompleted', 'RunFailed');
    // The steps read model follows the store a little behind: wait until it shows the three tool calls completed.
    const deadline = Date.now() + scaled(20_000);
    for (;;) {
      const steps = (await app.call('GET', `/runs/${runId}/steps`)).body as { steps: { kind: string; status: string }[] };
      if (steps.steps.filter((step) => step.kind === 'tool' && step.status === 'completed').length === 3) break;
      if (Date.now() > deadline) throw new Error(`the steps read model did not show the tool calls: ${JSON.stringify(steps)}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    const env = { AGENT_LEDGER_URL: app.baseUrl };
    const read = JSON.stringify(results(recorded)['files.read']);
    const written = JSON.stringify(results(recorded)['files.write']);
    expect(read.length).toBeGreaterThan(200);

    const got = capture();
    expect(await runCli(['runs', 'get', runId], got, env)).toBe(0);
    const tools = got.lines.slice(got.lines.indexOf('Tool results:'));
    expect(tools).toEqual([
      'Tool results:',
      `  r0/t0 files.read succeeded: ${read.slice(0, 200)}… (${read.length} chars; --full for all)`,
      `  r1/t0 files.write succeeded: ${written}`,
      '  r2/t0 files.append denied: denied by development: not now; not executed',
    ]);
    const full = capture();
    expect(await runCli(['runs', 'get', runId, '--full'], full, env)).toBe(0);
    expect(full.lines).toContain(`  r0/t0 files.read succeeded: ${read}`);

    const resultOf = (lines: string[]) => {
      const line = lines.find((l) => l.includes('ToolExecuted step=r0/t0')) ?? '';
      return line.slice(line.indexOf('result=') + 'result='.length);
    };
    const followed = capture();
    expect(await runCli(['events', 'follow', runId], followed, env)).toBe(0);
    expect(resultOf(followed.lines)).toBe(`${read.slice(0, 200)}… (${read.length} chars; --full for all)`);
    const followedFull = capture();
    expect(await runCli(['events', 'follow', runId, '--full'], followedFull, env)).toBe(0);
    expect(resultOf(followedFull.lines)).toBe(read);
  });

  it.each([
    ['the seeded notes.txt', 'notes.txt', (read: Record<string, unknown> | undefined) => `notes.txt says: ${String(read?.content)}`],
    ['a file that is not there', 'missing.txt', null],
  ] as const)('ticket-asker reads the file named in the answer (%s) and answers with what it read or why it could not', async (_what, file, expected) => {
    const runId = await start('ticket-asker', 'Read the notes');
    await eventsUntil(runId, 'InputRequested');
    const submitted = await app.call('POST', `/runs/${runId}/input`, { body: { input: file } });
    expect(submitted.status).toBe(200);
    const recorded = await eventsUntil(runId, 'RunCompleted', 'RunFailed');
    const read = recorded.find((e) => e.type === 'ToolExecuted' && e.data.toolName === 'files.read');
    const asked = recorded.filter((e) => e.type === 'ModelResponded').map((e) => e.data.response);
    expect(asked[1]).toEqual({ type: 'toolCalls', calls: [{ toolName: 'files.read', arguments: { path: file } }] });
    if (expected !== null) {
      expect(read?.data.outcome).toBe('succeeded');
      expect(results(recorded)['files.read']).toMatchObject({ path: 'notes.txt', content: EXAMPLE_NOTES });
      expect(answerOf(recorded)).toBe(expected(results(recorded)['files.read']));
    } else {
      expect(read?.data.outcome).toBe('failed');
      const message = (read?.data.error as { message: string }).message;
      expect(answerOf(recorded)).toBe(`I could not read missing.txt: ${message}`);
    }
  });
});
