import type { HttpTestApp } from '../testing/http-test-app';
import { httpTestKey, startHttpTestApp } from '../testing/http-test-app';
import type { AgentsAnswer } from '@agent-ledger/http';

describe('GET /agents', () => {
  const submitter = httpTestKey('submitter', ['runs:submit']);
  const reader = httpTestKey('reader', ['runs:read'], ['writer']);
  const ops = httpTestKey('ops', ['operate']);
  let app: HttpTestApp;

  beforeAll(async () => {
    app = await startHttpTestApp({ keys: [submitter, reader, ops] });
  });
  afterAll(() => app.close());

  it('lists every agent by name, with its tools and their effects from the registry, and its approvals (defaults applied)', async () => {
    const answer = await app.call('GET', '/agents', { key: submitter });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      agents: [
        { name: 'clock', description: 'Tells the time.', tools: [{ name: 'clock.now', effect: 'READ_ONLY' }], approvals: { preApproved: [], onDenial: 'endRun' } },
        {
          name: 'writer',
          description: null,
          tools: [
            { name: 'files.write', effect: 'IDEMPOTENT_WRITE' },
            { name: 'clock.now', effect: 'READ_ONLY' },
          ],
          approvals: { preApproved: ['files.write'], onDenial: 'tellModel' },
        },
      ],
    } satisfies AgentsAnswer);
  });

  it('lists only the agents of a key limited to some agents', async () => {
    const answer = await app.call('GET', '/agents', { key: reader });
    expect(answer.status).toBe(200);
    expect((answer.body as AgentsAnswer).agents.map((a) => a.name)).toEqual(['writer']);
  });

  it('refuses a key without runs:submit or runs:read (403), and no key (401)', async () => {
    const refused = await app.call('GET', '/agents', { key: ops });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'SCOPE_MISSING', requiredScopes: ['runs:submit', 'runs:read'] });
    expect((await app.call('GET', '/agents')).status).toBe(401);
  });
});
