import { API_SCOPES } from '@agent-ledger/http';
import type { HttpTestApp } from '../testing/http-test-app';
import { httpTestKey, startHttpTestApp } from '../testing/http-test-app';
import type { MeAnswer } from '@agent-ledger/http';

describe('GET /me', () => {
  describe('with API keys', () => {
    const limited = httpTestKey('clerk-bot', ['runs:submit', 'runs:read'], ['writer']);
    const full = httpTestKey('ops', ['operate', 'audit:read', 'runs:read']);
    const scraper = httpTestKey('prom', ['metrics:read']);
    let app: HttpTestApp;

    beforeAll(async () => {
      app = await startHttpTestApp({ keys: [limited, full, scraper] });
    });
    afterAll(() => app.close());

    it("answers a limited key's id, scopes and agents", async () => {
      const answer = await app.call('GET', '/me', { key: limited });
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({ keyId: 'clerk-bot', scopes: ['runs:submit', 'runs:read'], agents: ['writer'], authMode: 'api-keys' } satisfies MeAnswer);
    });

    it('answers agents null for a key of every agent, and any scope will do (metrics:read only)', async () => {
      expect((await app.call('GET', '/me', { key: full })).body).toEqual({ keyId: 'ops', scopes: ['operate', 'audit:read', 'runs:read'], agents: null, authMode: 'api-keys' });
      expect((await app.call('GET', '/me', { key: scraper })).body).toEqual({ keyId: 'prom', scopes: ['metrics:read'], agents: null, authMode: 'api-keys' });
    });

    it('answers 401 without a key or with a wrong one', async () => {
      const missing = await app.call('GET', '/me');
      expect(missing.status).toBe(401);
      expect(missing.body).toMatchObject({ code: 'UNAUTHENTICATED', reason: 'missing' });
      expect(missing.headers.get('www-authenticate')).toBe('Bearer realm="agent-ledger"');
      const wrong = await app.call('GET', '/me', { key: { ...full, key: `${full.key}x` } });
      expect(wrong.status).toBe(401);
      expect(wrong.body).toMatchObject({ code: 'UNAUTHENTICATED', reason: 'invalid' });
    });
  });

  describe('in the development mode (no key configured, loopback)', () => {
    let app: HttpTestApp;

    beforeAll(async () => {
      app = await startHttpTestApp();
    });
    afterAll(() => app.close());

    it('answers keyId null, every scope, every agent, and the mode', async () => {
      const answer = await app.call('GET', '/me');
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({ keyId: null, scopes: [...API_SCOPES], agents: null, authMode: 'disabled-on-loopback' } satisfies MeAnswer);
      expect(answer.headers.get('x-agent-ledger-auth')).toBe('disabled-on-loopback');
    });
  });
});
