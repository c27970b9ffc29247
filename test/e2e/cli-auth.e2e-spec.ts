/**
 * The CLI against a service that requires API keys: the key is read from
 * `AGENT_LEDGER_API_KEY` and sent as `Authorization: Bearer`, for JSON
 * requests and for the event stream alike; a missing or insufficient key is a
 * refused request (exit 4) naming the service's code.
 */
import type { CliResult } from './support/cli-process';
import { printedTypes, runCliProcess } from './support/cli-process';
import { apiKeysEnv, testKey, withKey } from './support/http-auth-support';
import type { HttpService } from './support/http-service';
import { startHttpService, testAgentsYaml } from './support/http-service';
import { scaled } from '../support/time-scale';

jest.setTimeout(scaled(120_000));

function expectExit(result: CliResult, code: number): void {
  if (result.code !== code) throw new Error(`expected exit ${code}, got ${result.code}\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`);
}

describe('agent-ledger CLI with API keys (e2e)', () => {
  const operator = testKey('operator', ['runs:submit', 'runs:read', 'runs:approve', 'operate']);
  const reader = testKey('reader', ['runs:read']);
  let service: HttpService;

  beforeAll(async () => {
    service = await startHttpService({ agentsYaml: testAgentsYaml('http://127.0.0.1:9/v1'), env: { API_KEYS: apiKeysEnv([operator, reader]) } });
  });

  afterAll(async () => {
    await service?.stop();
  });

  it('sends AGENT_LEDGER_API_KEY as a bearer token; no key or a key without the scope is refused with exit 4', async () => {
    const env = { AGENT_LEDGER_URL: service.baseUrl, AGENT_LEDGER_API_KEY: operator.key };
    const started = await runCliProcess(['runs', 'start', '--agent', 'clock', '--input', 'now?', '-q'], env);
    expectExit(started, 0);
    const runId = started.stdout.trim();
    const followed = await runCliProcess(['events', 'follow', runId], env);
    expectExit(followed, 0);
    expect(printedTypes(followed.stdout).at(-1)).toBe('RunCompleted');

    const [anonymous, readOnly, badKey] = await Promise.all([
      runCliProcess(['runs', 'list'], { AGENT_LEDGER_URL: service.baseUrl, AGENT_LEDGER_API_KEY: '' }),
      runCliProcess(['runs', 'start', '--agent', 'clock', '--input', 'now?'], { AGENT_LEDGER_URL: service.baseUrl, AGENT_LEDGER_API_KEY: reader.key }),
      runCliProcess(['events', 'follow', runId], { AGENT_LEDGER_URL: service.baseUrl, AGENT_LEDGER_API_KEY: 'not-a-key' }),
    ]);
    expectExit(anonymous, 4);
    expect(anonymous.stderr).toMatch(/refused: 401 UNAUTHENTICATED/);
    expectExit(readOnly, 4);
    expect(readOnly.stderr).toMatch(/refused: 403 SCOPE_MISSING/);
    expectExit(badKey, 4);
    expect(badKey.stderr).toMatch(/401 UNAUTHENTICATED/);
    expect(badKey.stderr).not.toContain('not-a-key');
  });

  it('records the key the CLI sends as who decided (key:operator), never a name of its own', async () => {
    const env = { AGENT_LEDGER_URL: service.baseUrl, AGENT_LEDGER_API_KEY: operator.key };
    const api = withKey(service.baseUrl, operator);
    const waiting = async (agent: string): Promise<string> => {
      const started = await runCliProcess(['runs', 'start', '--agent', agent, '--input', 'go', '-q'], env);
      expectExit(started, 0);
      const runId = started.stdout.trim();
      const deadline = Date.now() + 60_000;
      while ((await api.get<{ status?: string }>(`/runs/${runId}`)).body.status !== 'WAITING_FOR_APPROVAL') {
        if (Date.now() > deadline) throw new Error(`run ${runId} never waited for approval`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return runId;
    };

    const denied = await waiting('told');
    expectExit(await runCliProcess(['runs', 'deny', denied, '--reason', 'not today'], env), 0);
    const cancelled = await waiting('approver');
    expectExit(await runCliProcess(['runs', 'cancel', cancelled, '--reason', 'not needed'], env), 0);

    const deniedEvents = await runCliProcess(['events', 'follow', denied], env);
    expect(deniedEvents.stdout).toMatch(/ApprovalDenied round=0 decidedBy=key:operator reason="not today"/);
    const cancelledEvents = await runCliProcess(['events', 'follow', cancelled], env);
    expectExit(cancelledEvents, 1);
    expect(cancelledEvents.stdout).toMatch(/CancelRequested requestedBy=key:operator reason="not needed"/);
    expect(cancelledEvents.stdout).toMatch(/RunCancelled requestedBy=key:operator/);
    expect((await api.get<{ cancelRequestedBy?: string }>(`/runs/${cancelled}`)).body.cancelRequestedBy).toBe('key:operator');
  });
});
