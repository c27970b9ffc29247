import { randomUUID } from 'node:crypto';
import type { HttpTestApp } from '../testing/http-test-app';
import { startHttpTestApp } from '../testing/http-test-app';

/*
 * The read models follow the store a little behind (they batch live events
 * for up to 20 ms). A run whose start was acknowledged must still be found at
 * once by the routes that read one run: a miss waits for the read models to
 * apply what the store holds, then reads again. A run that does not exist is
 * still a 404.
 */
describe('reading a run right after starting it', () => {
  let app: HttpTestApp;

  beforeAll(async () => {
    app = await startHttpTestApp();
  });

  afterAll(async () => {
    await app.close();
  });

  it('GET /runs/{runId} and /runs/{runId}/steps find a queued run the moment POST /runs answered', async () => {
    const answers: Array<[number, number]> = [];
    for (let i = 0; i < 20; i++) {
      const started = await app.call('POST', '/runs', { body: { agent: 'clock', input: `now ${i}` } });
      expect(started.status).toBe(202);
      const runId = (started.body as { runId: string }).runId;
      const [run, steps] = await Promise.all([app.call('GET', `/runs/${runId}`), app.call('GET', `/runs/${runId}/steps`)]);
      answers.push([run.status, steps.status]);
      expect(run.body).toMatchObject({ runId, agent: 'clock' });
      expect(steps.body).toMatchObject({ runId, steps: expect.any(Array) });
    }
    expect(answers).toEqual(Array.from({ length: 20 }, () => [200, 200]));
  });

  it('an interactive run that answered COMPLETED is found with its tool step', async () => {
    const started = await app.call('POST', '/runs', { body: { agent: 'clock', input: 'now', mode: 'interactive' } });
    expect(started.status).toBe(200);
    const runId = (started.body as { runId: string }).runId;
    const steps = await app.call('GET', `/runs/${runId}/steps`);
    expect(steps.status).toBe(200);
    expect((steps.body as { steps: { toolName: string | null }[] }).steps.map((step) => step.toolName)).toContain('clock.now');
  });

  it('a run that does not exist is still a 404 on both routes', async () => {
    const runId = `absent-${randomUUID()}`;
    expect((await app.call('GET', `/runs/${runId}`)).status).toBe(404);
    expect((await app.call('GET', `/runs/${runId}/steps`)).status).toBe(404);
  });
});
