/**
 * `@agent-ledger/client` in a headless Chromium: the package's sources
 * bundled for the browser platform (esbuild: a `node:` import would not
 * resolve), loaded into a page of the service's origin, and driven there
 * with the browser's own fetch, streams and TextDecoder. The service runs in
 * this process (the test is of the client, not of the console, so it needs
 * no build); the page reaches it through the proxy of the client's tests,
 * which cuts the event stream mid-frame: the events the iterator yields in
 * the page are exactly the store's.
 */
import { join } from 'node:path';
import { build } from 'esbuild';
import type { Browser, Page } from 'playwright-core';
import type * as ClientModule from '@agent-ledger/client';
import { AgentLedgerClient } from '@agent-ledger/client';
import { launchChromium } from './support/chromium';
import { scaled } from '../support/time-scale';
import type { ClientTestService } from '../client/support/client-test-service';
import { startClientTestService } from '../client/support/client-test-service';
import type { DroppingProxy } from '../client/support/dropping-proxy';
import { startDroppingProxy } from '../client/support/dropping-proxy';

jest.setTimeout(scaled(120_000));

/** The page's globals this test reads (the repository compiles without the DOM's types). */
type PageGlobals = { readonly AgentLedger: typeof ClientModule; readonly location: { readonly origin: string } };

describe('the client in a browser', () => {
  let service: ClientTestService;
  let proxy: DroppingProxy;
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    const bundled = await build({
      entryPoints: [join(__dirname, '..', '..', 'libs', 'client', 'src', 'index.ts')],
      bundle: true,
      platform: 'browser',
      format: 'iife',
      globalName: 'AgentLedger',
      target: 'es2022',
      write: false,
      logLevel: 'silent',
    });
    service = await startClientTestService();
    // The page asks for /health?read after each event: a cut waits for it (see cutWhenRequested).
    proxy = await startDroppingProxy(service.baseUrl, [900, 1700, 2500], { cutWhenRequested: '/health?read' });
    browser = await launchChromium();
    page = await browser.newPage();
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    // Chromium logs every answer that is not a 2xx ("Failed to load resource": the 404s of a run the read model has not
    // seen yet, the 401 asked for, the streams the proxy cuts); any other console error is a problem.
    page.on('console', (message) => {
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) problems.push(`console error: ${message.text()}`);
    });
    // A page of the service's origin (through the proxy): the client's requests are same-origin, as the console's are.
    await page.goto(`${proxy.baseUrl}/health`);
    await page.addScriptTag({ content: bundled.outputFiles[0]?.text ?? '' });
  });

  afterAll(async () => {
    await browser?.close();
    await proxy?.close();
    await service?.close();
  });

  it('runs in the page without Node: starts a run, waits for it, reads it, and types the errors', async () => {
    const result = await page.evaluate(async ({ key }) => {
      const scope = globalThis as unknown as PageGlobals;
      const { AgentLedgerClient: Client, AgentLedgerApiError } = scope.AgentLedger;
      const client = new Client({ baseUrl: scope.location.origin, apiKey: key });
      const started = await client.startRun({ agent: 'clock', input: 'from a browser', idempotencyKey: `browser-${Date.now()}` });
      const settled = await client.waitForSettled(started.runId, { timeoutMs: 20_000, pollIntervalMs: 20 });
      const steps = await client.getSteps(started.runId);
      const refused = await new Client({ baseUrl: scope.location.origin }).me().catch((error: unknown) => error);
      return {
        nodeGlobals: typeof (globalThis as { process?: unknown }).process !== 'undefined' || typeof (globalThis as { Buffer?: unknown }).Buffer !== 'undefined',
        status: settled.status,
        steps: steps.steps.length,
        refused: refused instanceof AgentLedgerApiError ? { status: refused.status, code: refused.code } : String(refused),
      };
    }, { key: service.admin.key });
    expect(result).toEqual({ nodeGlobals: false, status: 'COMPLETED', steps: 3, refused: { status: 401, code: 'UNAUTHENTICATED' } });
    expect(problems).toEqual([]);
  });

  it("iterates over every run's events, resuming after the stream is cut: exactly the store's sequence", async () => {
    const direct = new AgentLedgerClient({ baseUrl: service.baseUrl, apiKey: service.admin.key });
    for (let i = 0; i < 4; i++) await direct.startRun({ agent: 'writer', input: `run ${i}`, mode: 'interactive' });
    const expected = (await service.runEvents()).map((event) => String(event.position));
    const positions = await page.evaluate(async ({ key, count }) => {
      const scope = globalThis as unknown as PageGlobals;
      const client = new scope.AgentLedger.AgentLedgerClient({ baseUrl: scope.location.origin, apiKey: key });
      const seen: string[] = [];
      for await (const event of client.events({ reconnect: { initialDelayMs: 10, maxDelayMs: 50 } })) {
        seen.push(event.position);
        if (seen.length === count) break;
        await fetch(`${scope.location.origin}/health?read=${seen.length}`);
      }
      return seen;
    }, { key: service.admin.key, count: expected.length });
    expect(positions).toEqual(expected);
    const streams = proxy.requests.filter((request) => request.path.startsWith('/events'));
    expect(streams.filter((request) => request.cut)).toHaveLength(3);
    // A reconnection resumes after the last event yielded: each cut waited for the page to read the whole frames before
    // it, so every reconnection after a cut with a whole frame sends the id of the last one. The ids are the store's, in order.
    const resumedAfter = streams.slice(1).flatMap((request) => (typeof request.headers['last-event-id'] === 'string' ? [expected.indexOf(request.headers['last-event-id'])] : []));
    expect(resumedAfter.length).toBeGreaterThanOrEqual(1);
    expect(resumedAfter.every((index) => index >= 0)).toBe(true);
    expect([...resumedAfter].sort((a, b) => a - b)).toEqual(resumedAfter);
    expect(problems).toEqual([]);
  });
});
