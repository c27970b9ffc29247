import { AgentLedgerApiError } from '../errors/api-error';
import { AgentLedgerConnectionError } from '../errors/connection-error';
import { HttpTransport } from './transport';

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json; charset=utf-8' } });
}

/** A fetch that never answers until its signal aborts. */
const hanging = (_url: string, init: RequestInit): Promise<Response> =>
  new Promise((_resolve, reject) => init.signal?.addEventListener('abort', () => reject(new DOMException('This operation was aborted', 'AbortError'))));

describe('HttpTransport', () => {
  it('sends the key, the JSON body with its type, and joins the base URL (a path prefix kept)', async () => {
    const seen: Array<{ url: string; init: RequestInit }> = [];
    const transport = new HttpTransport({
      baseUrl: 'https://host.test/ledger/',
      apiKey: 'secret',
      headers: { 'x-trace': 't1' },
      fetch: async (url, init) => {
        seen.push({ url, init });
        return json(202, { ok: true });
      },
    });
    await expect(transport.json({ method: 'POST', path: '/runs', body: { agent: 'a', input: null } }, [202])).resolves.toMatchObject({ status: 202, body: { ok: true } });
    expect(seen[0]?.url).toBe('https://host.test/ledger/runs');
    expect(seen[0]?.init).toMatchObject({ method: 'POST', body: '{"agent":"a","input":null}', headers: { authorization: 'Bearer secret', 'content-type': 'application/json', accept: 'application/json', 'x-trace': 't1' } });
    await expect(transport.json({ method: 'GET', path: '/me' }, [200])).rejects.toMatchObject({ status: 202, code: 'HTTP_202' });
    expect(seen[1]?.init.body).toBeUndefined();
    expect((seen[1]?.init.headers as Record<string, string>)['content-type']).toBeUndefined();
  });

  it('sends no Authorization without a key', async () => {
    let headers: Record<string, string> = {};
    const transport = new HttpTransport({ baseUrl: 'http://h.test', fetch: async (_url, init) => ((headers = init.headers as Record<string, string>), json(200, {})) });
    await transport.json({ method: 'GET', path: '/me' }, [200]);
    expect(headers.authorization).toBeUndefined();
  });

  it('refuses a base URL that is not http(s)', () => {
    expect(() => new HttpTransport({ baseUrl: 'localhost:3000' })).toThrow('baseUrl must be an http(s) URL (got "localhost:3000")');
  });

  it('rejects an error status with AgentLedgerApiError, and a status not expected too', async () => {
    const transport = new HttpTransport({ baseUrl: 'http://h.test', fetch: async () => json(404, { statusCode: 404, error: 'Not Found', code: 'RUN_NOT_FOUND', message: 'no run r1', runId: 'r1' }) });
    await expect(transport.json({ method: 'GET', path: '/runs/r1' }, [200])).rejects.toMatchObject({ name: 'AgentLedgerApiError', status: 404, code: 'RUN_NOT_FOUND', request: 'GET /runs/r1' });
    const html = new HttpTransport({ baseUrl: 'http://h.test', fetch: async () => new Response('<html/>', { status: 200, headers: { 'content-type': 'text/html' } }) });
    const failure = html.json({ method: 'GET', path: '/me' }, [200]);
    await expect(failure).rejects.toBeInstanceOf(AgentLedgerApiError);
    await expect(failure).rejects.toMatchObject({ code: 'HTTP_200', request: 'GET /me (expected a JSON answer, got text/html)' });
  });

  it('tells a network failure, an abort and a timeout apart', async () => {
    const down = new HttpTransport({ baseUrl: 'http://h.test', fetch: async () => Promise.reject(new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED 127.0.0.1:9') })) });
    const network = down.json({ method: 'GET', path: '/me' }, [200]);
    await expect(network).rejects.toBeInstanceOf(AgentLedgerConnectionError);
    await expect(network).rejects.toMatchObject({ reason: 'network', message: 'GET /me: the service could not be reached (fetch failed: connect ECONNREFUSED 127.0.0.1:9)' });

    const slow = new HttpTransport({ baseUrl: 'http://h.test', fetch: hanging, timeoutMs: 60_000 });
    await expect(slow.json({ method: 'GET', path: '/me', timeoutMs: 10 }, [200])).rejects.toMatchObject({ name: 'AgentLedgerConnectionError', reason: 'timeout' });
    const controller = new AbortController();
    const aborted = slow.json({ method: 'GET', path: '/me', signal: controller.signal }, [200]);
    controller.abort();
    await expect(aborted).rejects.toMatchObject({ name: 'AgentLedgerConnectionError', reason: 'aborted' });
    await expect(slow.json({ method: 'GET', path: '/me', signal: AbortSignal.abort() }, [200])).rejects.toMatchObject({ reason: 'aborted' });
  });
});
