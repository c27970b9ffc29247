/**
 * The CLI against a running service: the service as a child process on a free
 * port (the HTTP tests' support), and `agent-ledger` as child processes
 * driving it over HTTP: start, follow, get, list, cancel, and the exit codes
 * of refused requests, usage errors and an unreachable service.
 */
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { CliResult } from './support/cli-process';
import { printedTypes, runCliProcess, startCliProcess } from './support/cli-process';
import type { HoldingModelServer, HttpService } from './support/http-service';
import { eventually, request, settledRun, startHoldingModelServer, startHttpService, testAgentsYaml } from './support/http-service';
import { scaled } from '../support/time-scale';

jest.setTimeout(scaled(120_000));

/** The events of the `writer` agent's run (files.write, then files.append, both pre-approved, then the answer), in order. */
const WRITER_EVENTS = [
  'RunRequested',
  'RunClaimed',
  'StepStarted',
  'ModelResponded',
  'ToolCallPreApproved',
  'StepStarted',
  'ToolExecuted',
  'StepStarted',
  'ModelResponded',
  'ToolCallPreApproved',
  'StepStarted',
  'ToolExecuted',
  'StepStarted',
  'ModelResponded',
  'RunCompleted',
];

function expectExit(result: CliResult, code: number): void {
  if (result.code !== code) throw new Error(`expected exit ${code}, got ${result.code}\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`);
}

describe('agent-ledger CLI against the service (e2e)', () => {
  let model: HoldingModelServer;
  let service: HttpService;
  let env: Record<string, string>;

  beforeAll(async () => {
    model = await startHoldingModelServer();
    // The service as it runs by default: its runs in a worker process on a machine of several cores (a cancel crosses to it).
    service = await startHttpService({ agentsYaml: testAgentsYaml(model.baseUrl), env: { WORKER_PROCESSES: 'auto' } });
    env = { AGENT_LEDGER_URL: service.baseUrl };
  });

  afterAll(async () => {
    await service?.stop();
    await model?.close();
  });

  it('starts a queued run, follows its events until it settles, then gets and lists it', async () => {
    const started = await runCliProcess(['runs', 'start', '--agent', 'writer', '--input', '{"task":"report"}', '-q'], env);
    expectExit(started, 0);
    const runId = started.stdout.trim();
    expect(runId).toMatch(/^[0-9a-f-]{36}$/);

    const followed = await runCliProcess(['events', 'follow', runId], env);
    expectExit(followed, 0);
    expect(printedTypes(followed.stdout)).toEqual(WRITER_EVENTS);
    // Who started it: the caller as the service authenticated it (here the development mode).
    expect(followed.stdout).toMatch(/^\d+:\d+ RunRequested agent=writer mode=queued input=\{"task":"report"\} requestedBy=development$/m);
    expect(followed.stdout).toMatch(/^\d+:\d+ StepStarted step=r0\/t0 tool=files\.write effect=IDEMPOTENT_WRITE$/m);
    expect(followed.stdout).toMatch(/^\d+:\d+ RunCompleted answer="written"$/m);

    await settledRun(service.baseUrl, runId);
    const [got, gotJson, listed] = await Promise.all([
      runCliProcess(['runs', 'get', runId], env),
      runCliProcess(['runs', 'get', runId, '--json'], env),
      runCliProcess(['runs', 'list', '--agent', 'writer', '--status', 'COMPLETED', '--limit', '5'], env),
    ]);
    expectExit(got, 0);
    expect(got.stdout).toMatch(/^status\s+COMPLETED$/m);
    expect(got.stdout).toMatch(/^steps\s+5$/m);
    expect(got.stdout).toMatch(/^started by\s+development$/m);
    expectExit(gotJson, 0);
    expect(JSON.parse(gotJson.stdout)).toMatchObject({ runId, agent: 'writer', status: 'COMPLETED', reason: 'COMPLETED', attempts: 1, startedBy: 'development' });
    expectExit(listed, 0);
    expect(listed.stdout.split('\n')[0]).toMatch(/^run\s+agent\s+mode\s+status/);
    expect(listed.stdout).toMatch(new RegExp(`^${runId}\\s+writer\\s+queued\\s+COMPLETED\\s+COMPLETED\\s+1\\s+5\\s`, 'm'));
  });

  it('an idempotency key gives the same run twice; an interactive start prints the settled run', async () => {
    const args = ['runs', 'start', '--agent', 'idem-writer', '--input', 'log once', '--idempotency-key', 'cli-e2e-1', '--json'];
    const first = await runCliProcess(args, env);
    expectExit(first, 0);
    const second = await runCliProcess(args, env);
    expectExit(second, 0);
    const [a, b] = [JSON.parse(first.stdout) as { runId: string; replayed: boolean }, JSON.parse(second.stdout) as { runId: string; replayed: boolean }];
    expect(b.runId).toBe(a.runId);
    expect([a.replayed, b.replayed]).toEqual([false, true]);

    const interactive = await runCliProcess(['runs', 'start', '--agent', 'clock', '--input', 'what time is it?', '--mode', 'interactive'], env);
    expectExit(interactive, 0);
    expect(interactive.stdout).toMatch(/^status\s+COMPLETED$/m);
    expect(interactive.stdout).toMatch(/^answer\s+tick$/m);
    expect(interactive.stdout).toMatch(/^started by\s+development$/m);
    expect(interactive.stdout).toMatch(/\/r0\/t0\s+tool\s+clock\.now\s+READ_ONLY\s+completed\s+succeeded/);
  });

  it('cancels a running run (its follower sees RunCancelled and exits 1); a second cancel is refused with exit 4', async () => {
    const started = await runCliProcess(['runs', 'start', '--agent', 'held', '--input', 'wait', '-q'], env);
    expectExit(started, 0);
    const runId = started.stdout.trim();
    const follower = startCliProcess(['events', 'follow', runId], env);
    await follower.waitFor(/StepStarted step=r0\/llm/);
    await eventually(async () => (model.received() > 0 ? true : undefined), 'the held model call');

    const cancelled = await runCliProcess(['runs', 'cancel', runId, '--reason', 'not needed'], env);
    expectExit(cancelled, 0);
    expect(cancelled.stdout).toContain('cancel requested');

    const followed = await follower.exited();
    expectExit(followed, 1);
    expect(printedTypes(followed.stdout).slice(-2)).toEqual(['CancelRequested', 'RunCancelled']);
    // Who asks is the caller as the service authenticated it (here the development mode), never a name the CLI makes up.
    expect(followed.stdout).toMatch(/CancelRequested requestedBy=development reason="not needed"/);

    const again = await runCliProcess(['runs', 'cancel', runId], env);
    expectExit(again, 4);
    expect(again.stderr).toContain('409 RUN_ALREADY_SETTLED');
  });

  it('Ctrl-C ends events follow with exit 0 while the run goes on', async () => {
    const started = await runCliProcess(['runs', 'start', '--agent', 'held', '--input', 'wait again', '-q'], env);
    expectExit(started, 0);
    const runId = started.stdout.trim();
    const follower = startCliProcess(['events', 'follow', runId], env);
    await follower.waitFor(/RunClaimed/);
    const stopped = await follower.stop('SIGINT');
    expectExit(stopped, 0);
    expect(printedTypes(stopped.stdout)).not.toContain('RunCancelled');
    expect((await request(service.baseUrl, 'POST', `/runs/${runId}/cancel`, {})).status).toBe(202);
  });

  it('exit 4 for a refused request: unknown agent (naming the field), unknown run', async () => {
    const [badAgent, unknownRun, unknownFollow] = await Promise.all([
      runCliProcess(['runs', 'start', '--agent', 'nobody', '--input', 'x'], env),
      runCliProcess(['runs', 'get', 'no-such-run'], env),
      runCliProcess(['events', 'follow', 'no-such-run'], env),
    ]);
    expectExit(badAgent, 4);
    expect(badAgent.stderr).toMatch(/400 INVALID_FIELD: .*\(field: agent/);
    expectExit(unknownRun, 4);
    expect(unknownRun.stderr).toContain('404 RUN_NOT_FOUND');
    expectExit(unknownFollow, 4);
  });

  it('exit 2 for a wrong command line, and 3 when the service cannot be reached', async () => {
    const closedPort = await freePort();
    const unreachable = { AGENT_LEDGER_URL: `http://127.0.0.1:${closedPort}` };
    const [unknown, missing, key, list, follow] = await Promise.all([
      runCliProcess(['runs', 'frobnicate'], env),
      runCliProcess(['runs', 'start', '--input', 'x'], env),
      runCliProcess(['runs', 'list', '--api-key', 'secret'], env),
      runCliProcess(['runs', 'list'], unreachable),
      runCliProcess(['events', 'follow', 'r1'], unreachable),
    ]);
    expectExit(unknown, 2);
    expectExit(missing, 2);
    expect(missing.stderr).toContain('--agent is required');
    expectExit(key, 2);
    expect(key.stderr).toContain('AGENT_LEDGER_API_KEY');
    expectExit(list, 3);
    expect(list.stderr).toContain(`cannot reach the service at http://127.0.0.1:${closedPort}`);
    expect(list.stderr).toContain('ECONNREFUSED');
    expectExit(follow, 3);
  });
});

/** A port nothing listens on (bound, then released). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
