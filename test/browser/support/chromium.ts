/**
 * The browser of the browser tier: the system's Chromium (Debian's `chromium`
 * package), driven by `playwright-core` (which downloads no browser of its
 * own). No browser is a failure, never a skip: these tests must run in CI,
 * whose `.ci/run` installs it.
 */
import { existsSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { chromium } from 'playwright-core';

/** Where a Chromium is looked for when `CHROMIUM_PATH` is not set, in this order. */
export const CHROMIUM_CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser'] as const;

/**
 * The Chromium executable: `CHROMIUM_PATH` when set (it must exist), else the
 * first of {@link CHROMIUM_CANDIDATES} that exists.
 * @throws Error naming the install command when there is none.
 */
export function chromiumPath(env: NodeJS.ProcessEnv = process.env): string {
  const configured = env.CHROMIUM_PATH;
  if (configured !== undefined && configured !== '') {
    if (!existsSync(configured)) throw new Error(`CHROMIUM_PATH is ${configured}, which does not exist. Unset it, or install Chromium: apt-get install chromium`);
    return configured;
  }
  const found = CHROMIUM_CANDIDATES.find((candidate) => existsSync(candidate));
  if (found === undefined) {
    throw new Error(
      `No Chromium for the browser tests (looked for ${CHROMIUM_CANDIDATES.join(', ')}; set CHROMIUM_PATH to use another). ` +
        'Install it: apt-get install chromium (as root; .ci/run does this in CI).',
    );
  }
  return found;
}

/** Launches a headless Chromium. `--no-sandbox`: the tests run as root (CI, containers), where Chromium's sandbox cannot start. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath(), headless: true, args: ['--no-sandbox'] });
}
