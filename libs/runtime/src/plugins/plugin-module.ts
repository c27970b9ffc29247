import { existsSync, statSync } from 'node:fs';
import { extname } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The file extensions a plugin may have: CommonJS (`.js`, `.cjs`) or ES module (`.mjs`, or `.js` in a `"type": "module"` package). */
export const PLUGIN_EXTENSIONS: readonly string[] = Object.freeze(['.js', '.cjs', '.mjs']);

// A real `import()`: TypeScript compiles `import()` to `require()` in CommonJS output, which cannot load an ES module.
const importModule = new Function('specifier', 'return import(specifier)') as (specifier: string) => Promise<unknown>;

/**
 * Loads a plugin file (an absolute path): `require` for `.js` and `.cjs`
 * (falling back to `import()` for a `.js` that is an ES module), `import()`
 * for `.mjs`. Returns what the module exports: `module.exports`, or the ES
 * module's namespace.
 *
 * @throws Error saying why: not found, not a file, an extension that is not
 *   one of {@link PLUGIN_EXTENSIONS}, or the loader's own error.
 */
export async function loadPluginModule(file: string): Promise<unknown> {
  if (!existsSync(file)) throw new Error('cannot be found (no such file)');
  if (!statSync(file).isFile()) throw new Error('is not a file');
  const extension = extname(file);
  if (!PLUGIN_EXTENSIONS.includes(extension)) {
    throw new Error(`must be a JavaScript module (${PLUGIN_EXTENSIONS.join(', ')}), not ${extension === '' ? 'a file without an extension' : extension}: build TypeScript first and name the built file`);
  }
  try {
    if (extension === '.mjs') return await importModule(pathToFileURL(file).href);
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- a plugin's path is known at run time only
      return require(file) as unknown;
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'ERR_REQUIRE_ESM' && (error as { code?: unknown }).code !== 'ERR_REQUIRE_ASYNC_MODULE') throw error;
      return await importModule(pathToFileURL(file).href);
    }
  } catch (error) {
    throw new Error(`failed to load: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`, { cause: error });
  }
}
