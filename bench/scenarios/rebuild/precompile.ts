/**
 * Transpiles the sources a benchmark child runs into a folder of plain
 * JavaScript, so that the child runs under plain `node`, as a compiled
 * service or CLI does, without ts-node and the TypeScript compiler it keeps
 * in memory (about 45 MB of RSS, plus its caches): the child's peak RSS is
 * then the product's.
 *
 * Each file the entry needs goes through `ts.transpileModule` with the
 * repository's compiler options: the very transform ts-node's transpile-only
 * mode applies, done once, ahead of time. The `@agent-ledger/<lib>` aliases
 * become relative paths; `node_modules` is a symbolic link to the
 * repository's.
 */
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import ts from 'typescript';
import { REPOSITORY_ROOT } from './child-process';

function compilerOptions(): ts.CompilerOptions {
  const configPath = join(REPOSITORY_ROOT, 'tsconfig.json');
  const read = ts.readConfigFile(configPath, (path) => ts.sys.readFile(path));
  if (read.error !== undefined) throw new Error(`tsconfig.json: ${ts.flattenDiagnosticMessageText(read.error.messageText, '\n')}`);
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, REPOSITORY_ROOT);
  return { ...parsed.options, sourceMap: false, inlineSourceMap: false, declaration: false, noEmit: false };
}

/** The TypeScript source a relative `require` of `fromSource` names: `<path>.ts` or `<path>/index.ts`. */
function sourceOf(fromSource: string, specifier: string): string {
  const base = join(dirname(fromSource), specifier);
  for (const candidate of [`${base}.ts`, join(base, 'index.ts')]) if (existsSync(candidate)) return candidate;
  throw new Error(`precompile: ${relative(REPOSITORY_ROOT, fromSource)} requires ${specifier}, which is no TypeScript source of the repository`);
}

/**
 * Transpiles `entries` (`.ts` paths of the repository) and every source of
 * the repository they require, transitively, into `outDir` (same layout as
 * the repository), and returns where a source's compiled file is.
 */
export function precompile(outDir: string, entries: readonly string[]): { readonly outDir: string; readonly files: number; compiled(source: string): string } {
  const options = compilerOptions();
  const target = (source: string) => join(outDir, relative(REPOSITORY_ROOT, source)).replace(/\.ts$/, '.js');
  const pending = [...entries];
  const done = new Set<string>();
  for (let source = pending.pop(); source !== undefined; source = pending.pop()) {
    if (done.has(source)) continue;
    done.add(source);
    const output = ts.transpileModule(readFileSync(source, 'utf8'), { compilerOptions: options, fileName: source, reportDiagnostics: false }).outputText;
    const fromDir = dirname(target(source));
    // `@agent-ledger/<lib>[/<path>]` → `libs/<lib>/src[/<path>]`, relative to the file.
    const resolved = output.replace(/require\("@agent-ledger\/([a-z-]+)(\/[^"]*)?"\)/g, (_, lib: string, rest: string | undefined) => {
      const path = relative(fromDir, join(outDir, 'libs', lib, 'src', rest ?? ''));
      return `require(${JSON.stringify(path.startsWith('.') ? path : `./${path}`)})`;
    });
    for (const [, specifier] of resolved.matchAll(/require\("(\.[^"]*)"\)/g)) pending.push(sourceOf(source, specifier as string));
    mkdirSync(fromDir, { recursive: true });
    writeFileSync(target(source), resolved);
  }
  symlinkSync(join(REPOSITORY_ROOT, 'node_modules'), join(outDir, 'node_modules'), 'dir');
  return { outDir, files: done.size, compiled: target };
}
