import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** The `name` of the service's package (`apps/agent-ledger/package.json`): how {@link findPackageRoot} knows it found the right one. */
export const PACKAGE_NAME = 'agent-ledger';

/** Where the console's build lands under the package root (`apps/console/vite.config.ts`: `outDir`). */
export const CONSOLE_BUILD_DIR = join('dist', 'console');

/**
 * The folder holding the service package's `package.json` (its `name` is
 * {@link PACKAGE_NAME}), found by walking up from `from`. The same answer
 * from the build (`apps/agent-ledger/dist/config`), from the sources run by
 * ts-node (`apps/agent-ledger/src/config`) and from an installed copy
 * (`node_modules/agent-ledger/dist/config`); null when no such folder is
 * above `from` (the code was copied elsewhere).
 */
export function findPackageRoot(from: string = __dirname): string | null {
  let dir = resolve(from);
  for (;;) {
    const candidate = join(dir, 'package.json');
    if (existsSync(candidate) && packageNameOf(candidate) === PACKAGE_NAME) return dir;
    const parent = dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

/**
 * The default of `CONSOLE_DIR`: {@link CONSOLE_BUILD_DIR} under the package
 * root, or under `cwd` when no package root is found above this file.
 */
export function defaultConsoleDir(cwd: string, from: string = __dirname): string {
  return join(findPackageRoot(from) ?? resolve(cwd), CONSOLE_BUILD_DIR);
}

/** The `name` of a `package.json`, or null when it cannot be read or has none (another package's file, a broken one: not ours). */
function packageNameOf(path: string): string | null {
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as { name?: unknown };
    return typeof parsed.name === 'string' ? parsed.name : null;
  } catch {
    // Unreadable or not JSON: it is not this repository's package.json, keep walking up.
    return null;
  }
}
