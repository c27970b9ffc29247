/**
 * A console tab for a test: a fresh browser context (1280x800, downloads
 * accepted, the page's CSP enforced), the page at `/console/`, and a record of
 * what went wrong in it: console errors, uncaught page errors, and Content
 * Security Policy violations (the `securitypolicyviolation` events, and
 * console messages naming the policy). Every test ends with
 * {@link ConsoleTab.expectNoProblems}.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { TestKey } from '../../e2e/support/http-auth-support';
import { consoleBuilt, ROOT } from './built-service';
import type { ConsoleService } from './console-service';
import { scaled } from '../../support/time-scale';

/** Where `CONSOLE_SCREENSHOTS=1` writes the README's screenshots. */
export const SCREENSHOT_DIR = join(ROOT, 'docs', 'console');
export const VIEWPORT = { width: 1280, height: 800 } as const;
/** The longest wait for something the console shows (a live update, a row). */
export const UI_TIMEOUT_MS = scaled(20_000);

export interface ConsoleProblem {
  readonly kind: 'console' | 'pageerror' | 'csp';
  readonly text: string;
}

export interface ConsoleTab {
  readonly page: Page;
  readonly context: BrowserContext;
  /** What went wrong so far. */
  problems(): readonly ConsoleProblem[];
  /** The URL of every request the page made so far. */
  requestUrls(): readonly string[];
  /** Every entry of the page's `sessionStorage` and `localStorage`, and the context's cookies. */
  storage(): Promise<{ readonly session: Record<string, string>; readonly local: Record<string, string>; readonly cookies: readonly string[] }>;
  /**
   * Fails when anything went wrong in the page, except console errors matching
   * one of `allowed` (e.g. the browser's own log line of an expected 401).
   */
  expectNoProblems(allowed?: readonly RegExp[]): void;
  /** Goes to a hash route of the console (`#/runs`, ...), loading the page if it is not loaded yet. */
  go(route: string): Promise<void>;
  /** Signs in with the key on the sign-in form, and waits for `signed-in-as`. */
  signIn(key: TestKey | string): Promise<void>;
  /** Writes `docs/console/<name>.png` (the viewport) when `CONSOLE_SCREENSHOTS=1`. */
  screenshot(name: string): Promise<void>;
  close(): Promise<void>;
}

const CSP_TEXT = /Content Security Policy/i;

export async function openConsoleTab(browser: Browser, service: ConsoleService): Promise<ConsoleTab> {
  consoleBuilt();
  const context = await browser.newContext({ viewport: VIEWPORT, acceptDownloads: true, bypassCSP: false });
  const problems: ConsoleProblem[] = [];
  await context.exposeBinding('__agentLedgerTestCsp', (_source, text: string) => void problems.push({ kind: 'csp', text }));
  // Injected by the browser driver, not by the page: the page's own CSP does not apply to it.
  await context.addInitScript(() => {
    const report = (globalThis as unknown as { __agentLedgerTestCsp(text: string): void }).__agentLedgerTestCsp;
    (globalThis as unknown as { document: { addEventListener(type: string, listener: (event: Record<string, unknown>) => void): void } }).document.addEventListener(
      'securitypolicyviolation',
      (event) => report(`${String(event.violatedDirective)} blocked ${String(event.blockedURI)} (${String(event.sourceFile)}:${String(event.lineNumber)})`),
    );
  });
  const page = await context.newPage();
  const requestUrls: string[] = [];
  page.on('request', (request) => void requestUrls.push(request.url()));
  page.on('console', (message) => {
    if (CSP_TEXT.test(message.text())) problems.push({ kind: 'csp', text: message.text() });
    else if (message.type() === 'error') problems.push({ kind: 'console', text: `${message.text()} (${message.location().url})` });
  });
  page.on('pageerror', (error) => problems.push({ kind: 'pageerror', text: error.stack ?? error.message }));

  const go = async (route: string) => {
    const url = `${service.consoleUrl}${route}`;
    if (page.url().startsWith(service.consoleUrl)) await page.evaluate((hash) => void ((globalThis as unknown as { location: { hash: string } }).location.hash = hash), route);
    else await page.goto(url);
  };
  return {
    page,
    context,
    problems: () => problems,
    requestUrls: () => requestUrls,
    storage: async () => {
      const [session, local] = (await page.evaluate('[Object.assign({}, sessionStorage), Object.assign({}, localStorage)]')) as [Record<string, string>, Record<string, string>];
      const cookies = (await context.cookies()).map((c) => `${c.name}=${c.value}`);
      return { session, local, cookies };
    },
    expectNoProblems: (allowed = []) => {
      const unexpected = problems.filter((p) => !(p.kind === 'console' && allowed.some((pattern) => pattern.test(p.text))));
      expect(unexpected).toEqual([]);
    },
    go,
    signIn: async (key) => {
      if (!page.url().startsWith(service.consoleUrl)) await page.goto(`${service.consoleUrl}#/sign-in`);
      await page.getByTestId('api-key').fill(typeof key === 'string' ? key : key.key);
      await page.getByTestId('sign-in').click();
      if (typeof key !== 'string') {
        await page.locator(`[data-testid=signed-in-as]:has-text("${key.entry.id}")`).waitFor({ timeout: UI_TIMEOUT_MS });
      }
    },
    screenshot: async (name) => {
      if (process.env.CONSOLE_SCREENSHOTS !== '1') return;
      mkdirSync(SCREENSHOT_DIR, { recursive: true });
      await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`), fullPage: false });
    },
    close: () => context.close(),
  };
}
