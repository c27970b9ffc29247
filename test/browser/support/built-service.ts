/**
 * The browser tier starts the BUILT service, as a user does: the console is
 * only served from a build (`libs/http/console/`, the console's build in @agent-ledger/http).
 * Where those files are, whether they are missing or older than their
 * sources, and the build that refreshes them.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

export const ROOT = join(__dirname, '..', '..', '..');
/** The compiled service (`npm run build`). */
export const BUILT_SERVICE = join(ROOT, 'apps/agent-ledger/dist/main.js');
/** The console's page (`npm run build`, the Vite build of `apps/console`). */
export const BUILT_CONSOLE = join(ROOT, 'libs/http/console/index.html');

/** The sources a build is made of: a file here newer than the build makes it stale. */
const SOURCE_DIRS = ['apps', 'libs'];
const SOURCE_FILE = /\.(ts|tsx|js|jsx|css|html|json|svg)$/;
/** Tests beside the sources are not built. */
const TEST_FILE = /[.-]spec\.tsx?$/;

function newestMtime(dir: string): number {
  let newest = 0;
  if (!existsSync(dir)) return newest;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    // Build outputs (each package's dist/, the console's build) are not sources.
    if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestMtime(path));
    else if (SOURCE_FILE.test(entry.name) && !TEST_FILE.test(entry.name)) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

/** Why the build must be (re)made, or null when it is there and newer than every source. */
export function buildProblem(): string | null {
  const missing = [BUILT_SERVICE, BUILT_CONSOLE].filter((file) => !existsSync(file));
  if (missing.length > 0) return `missing: ${missing.map((f) => f.slice(ROOT.length + 1)).join(', ')}`;
  const built = Math.min(statSync(BUILT_SERVICE).mtimeMs, statSync(BUILT_CONSOLE).mtimeMs);
  const sources = Math.max(...SOURCE_DIRS.map((dir) => newestMtime(join(ROOT, dir))));
  return sources > built ? 'older than the sources in apps/ and libs/' : null;
}

/**
 * Makes sure the build is there: outside CI, runs `npm run build` once when it
 * is missing or stale. In CI (`CI=true`) `.ci/run` has built already: nothing
 * is rebuilt, and a missing service fails here, naming the file. (A missing
 * console fails the tests that open it: {@link consoleBuilt}.)
 */
export function ensureBuilt(env: NodeJS.ProcessEnv = process.env): void {
  const problem = buildProblem();
  if (problem === null) return;
  if (env.CI === 'true') {
    if (!existsSync(BUILT_SERVICE)) throw new Error(`The browser tests need the built service (${problem}); in CI, .ci/run builds before testing.`);
    return; // CI builds from the same clone before the tests: a file's mtime from the checkout is no reason to rebuild.
  }
  process.stdout.write(`\nbrowser tests: the build is ${problem}; running npm run build...\n`);
  const started = Date.now();
  try {
    execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'pipe', encoding: 'utf8' });
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string };
    throw new Error(`npm run build failed:\n${failed.stdout ?? ''}${failed.stderr ?? ''}`);
  }
  process.stdout.write(`browser tests: built in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  if (!existsSync(BUILT_SERVICE)) throw new Error(`npm run build did not produce ${BUILT_SERVICE.slice(ROOT.length + 1)}`);
}

/** Throws, naming the file and the command, when the console was not built (before a test opens it). */
export function consoleBuilt(): void {
  if (!existsSync(BUILT_CONSOLE)) {
    throw new Error(`${BUILT_CONSOLE.slice(ROOT.length + 1)} is missing: the console is served from a build (npm run build builds apps/console).`);
  }
}
