import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { HttpService } from './support/http-service';
import { request, settledRun, startHttpService } from './support/http-service';
import { scaled } from '../support/time-scale';

/** A chat-completions server that refuses every request with 401: its runs are dead-lettered NOT_RETRYABLE. */
async function startRefusingModelServer() {
  const server = createServer((req, res) => {
    req.resume();
    res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":{"message":"bad key"}}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('POST /runs/{runId}/requeue (e2e)', () => {
  let service: HttpService;
  let model: Awaited<ReturnType<typeof startRefusingModelServer>>;

  beforeAll(async () => {
    model = await startRefusingModelServer();
    service = await startHttpService({
      agentsYaml: `agents:
  - name: refused
    instructions: Ask a model that refuses.
    tools: [clock.now]
    maxIterations: 2
    provider: { type: openai, baseUrl: ${model.baseUrl}, model: any }
  - name: clock
    instructions: Tell the time.
    tools: [clock.now]
    maxIterations: 2
    provider: { type: scripted, script: [{ final: tick }] }
`,
    });
  }, scaled(90_000));

  afterAll(async () => {
    await service?.stop();
    await model?.close();
  });

  it('requeues a dead-lettered run as a continuation run, once; the run itself stays FAILED', async () => {
    const started = await request<{ runId: string }>(service.baseUrl, 'POST', '/runs', { agent: 'refused', input: 'go' });
    const dead = await settledRun(service.baseUrl, started.body.runId);
    expect(dead).toMatchObject({ status: 'FAILED', reason: 'NOT_RETRYABLE', deadLettered: true });

    const requeued = await request<{ runId: string; continuationRunId: string }>(service.baseUrl, 'POST', `/runs/${dead.runId}/requeue`, {
      reason: 'the key was rotated',
    });
    expect(requeued.status).toBe(202);
    expect(requeued.body.runId).toBe(dead.runId);
    const continuation = await settledRun(service.baseUrl, requeued.body.continuationRunId);
    expect(continuation).toMatchObject({ agent: 'refused', status: 'FAILED', reason: 'NOT_RETRYABLE' });
    expect((await request<{ status: string }>(service.baseUrl, 'GET', `/runs/${dead.runId}`)).body.status).toBe('FAILED');

    const again = await request<{ code: string; continuationRunId?: string }>(service.baseUrl, 'POST', `/runs/${dead.runId}/requeue`, {});
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('RUN_ALREADY_REQUEUED');
  }, scaled(60_000));

  it('refuses a run that is not dead-lettered, and a malformed resolution naming the field', async () => {
    const done = await request<{ runId: string }>(service.baseUrl, 'POST', '/runs', { agent: 'clock', input: 'now', mode: 'interactive' });
    const refused = await request<{ code: string }>(service.baseUrl, 'POST', `/runs/${done.body.runId}/requeue`, {});
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('RUN_NOT_DEAD_LETTERED');

    const bad = await request<{ code: string; field: string }>(service.baseUrl, 'POST', `/runs/${done.body.runId}/requeue`, { resolution: { outcome: 'maybe', note: 'x' } });
    expect(bad.status).toBe(400);
    expect(bad.body.field).toBe('resolution.outcome');
    const missing = await request(service.baseUrl, 'POST', '/runs/no-such-run/requeue', {});
    expect(missing.status).toBe(404);
  }, scaled(60_000));
});
