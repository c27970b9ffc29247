import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';

/*
 * The packages' boundaries, checked on their sources: one dependency
 * direction (the domain, the client and the crash points at the bottom; the
 * event store and the validation above them; the runtime and the projections
 * beside each other; their composition, then the HTTP module, then the
 * service on top), imports of another package only through its entry points
 * (the ones its package.json exports),
 * every import of published code declared in the package's package.json, and
 * nothing of a test (a `testing/` folder, `test/`, a spec) reachable from
 * published code.
 */

const ROOT = join(__dirname, '..', '..');

/** Each package's layer: a package may depend only on packages of a lower layer. */
const LAYERS: Readonly<Record<string, number>> = {
  '@agent-ledger/domain': 0,
  '@agent-ledger/crash-points': 0,
  '@agent-ledger/client': 0,
  '@agent-ledger/validation': 1,
  '@agent-ledger/event-store': 1,
  '@agent-ledger/runtime': 2,
  '@agent-ledger/projections': 2,
  '@agent-ledger/module': 3,
  '@agent-ledger/mcp': 3,
  '@agent-ledger/http': 4,
  'agent-ledger': 5,
};

interface Manifest {
  readonly name: string;
  readonly version: string;
  readonly private?: boolean;
  readonly main?: string;
  readonly types?: string;
  readonly bin?: Record<string, string>;
  readonly exports?: Record<string, unknown>;
  readonly typesVersions?: Record<string, Record<string, string[]>>;
  readonly files?: string[];
  readonly dependencies?: Record<string, string>;
  readonly peerDependencies?: Record<string, string>;
}

interface WorkspacePackage {
  readonly dir: string;
  readonly manifest: Manifest;
}

function readManifest(dir: string): Manifest {
  return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;
}

function workspacePackages(): WorkspacePackage[] {
  const libs = readdirSync(join(ROOT, 'libs'))
    .map((name) => join(ROOT, 'libs', name))
    .filter((dir) => existsSync(join(dir, 'package.json')));
  return [...libs, join(ROOT, 'apps', 'agent-ledger')].map((dir) => ({ dir, manifest: readManifest(dir) }));
}

function sourceFiles(dir: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) files.push(...sourceFiles(path));
    else if (/\.tsx?$/.test(entry)) files.push(path);
  }
  return files;
}

/** A test's file: a spec of any tier, or a helper under a `testing/` folder. Not built, not published. */
function isTestFile(path: string): boolean {
  return /\.(spec|int-spec|e2e-spec|sim-spec)\.ts$/.test(path) || path.split(sep).includes('testing');
}

function importsOf(path: string): string[] {
  const text = readFileSync(path, 'utf8');
  const specifiers = new Set<string>();
  for (const match of text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+'([^']+)'/g)) specifiers.add(match[1] as string);
  for (const match of text.matchAll(/(?:^|\n)\s*import\s+'([^']+)'/g)) specifiers.add(match[1] as string);
  for (const match of text.matchAll(/\b(?:require|import)\(\s*'([^']+)'\s*\)/g)) specifiers.add(match[1] as string);
  return [...specifiers];
}

/** `@scope/name/sub/path` → `@scope/name`; `name/sub` → `name`. */
function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? `${parts[0]}/${parts[1]}` : (parts[0] as string);
}

const BUILTINS = new Set(builtinModules);
const isBuiltin = (specifier: string) => specifier.startsWith('node:') || BUILTINS.has(packageOf(specifier));

const packages = workspacePackages();

/** The subpaths a package exports besides `.` and `./package.json` (`/settings`), by package name. */
const entryPoints = new Map(
  packages.map((p) => [p.manifest.name, new Set(Object.keys(p.manifest.exports ?? {}).filter((key) => key !== '.' && key !== './package.json').map((key) => key.slice(1)))]),
);
const rootVersion = readManifest(ROOT).version;

describe('the workspace packages', () => {
  it('are every library and the service, each with a layer', () => {
    expect(packages.map((p) => p.manifest.name).sort()).toEqual(expect.arrayContaining(['agent-ledger', '@agent-ledger/domain', '@agent-ledger/runtime', '@agent-ledger/projections', '@agent-ledger/module']));
    for (const { manifest } of packages) expect([manifest.name, LAYERS[manifest.name]]).toEqual([manifest.name, expect.any(Number)]);
  });

  it.each(packages.map((p) => [p.manifest.name, p] as const))('%s: one version for all, published files only from dist, types with every entry point (also for TypeScript\'s older resolution)', (_name, { manifest }) => {
    expect(manifest.version).toBe(rootVersion);
    expect(manifest.private).toBeUndefined();
    expect(manifest.files).toEqual(expect.arrayContaining(['dist']));
    if (manifest.bin === undefined) {
      expect(manifest.types).toBe('dist/index.d.ts');
      expect(manifest.exports?.['.']).toEqual({ types: './dist/index.d.ts', default: './dist/index.js' });
    }
    for (const sub of entryPoints.get(manifest.name) ?? []) {
      expect([sub, manifest.exports?.[`.${sub}`]]).toEqual([sub, { types: `./dist${sub}.d.ts`, default: `./dist${sub}.js` }]);
      // TypeScript's older module resolution ("node", used by this workspace and by many hosts) reads typesVersions, not exports.
      expect([sub, manifest.typesVersions?.['*']?.[sub.slice(1)]]).toEqual([sub, [`dist${sub}.d.ts`]]);
    }
  });

  it.each(packages.map((p) => [p.manifest.name, p] as const))('%s depends only on packages of a lower layer, and pins them to the one version', (name, { manifest }) => {
    const problems: string[] = [];
    for (const [dependency, range] of Object.entries({ ...manifest.dependencies, ...manifest.peerDependencies })) {
      const layer = LAYERS[dependency];
      if (layer === undefined) continue;
      if (!(layer < (LAYERS[name] as number))) problems.push(`${dependency} is not below ${name}`);
      if (range !== rootVersion) problems.push(`${dependency}@${range} is not ${rootVersion}`);
    }
    expect(problems).toEqual([]);
  });

  it.each(packages.map((p) => [p.manifest.name, p] as const))('%s: published code imports only its own files and declared dependencies, through their entry points; nothing of a test', (name, { dir, manifest }) => {
    const declared = new Set([...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.peerDependencies ?? {})]);
    const problems: string[] = [];
    const src = join(dir, 'src');
    for (const file of sourceFiles(src)) {
      const where = relative(ROOT, file);
      const test = isTestFile(file);
      for (const specifier of importsOf(file)) {
        if (specifier.startsWith('.')) {
          const target = resolve(dirname(file), specifier);
          if (test) continue; // a test may reach the repository's test support (test/support)
          if (!target.startsWith(src + sep)) problems.push(`${where}: '${specifier}' leaves the package`);
          else if (target.split(sep).includes('testing')) problems.push(`${where}: '${specifier}' is a test helper`);
          continue;
        }
        if (isBuiltin(specifier)) continue;
        const dependency = packageOf(specifier);
        if (dependency === name) {
          problems.push(`${where}: '${specifier}' imports its own package by name`);
          continue;
        }
        if (LAYERS[dependency] !== undefined) {
          const sub = specifier.slice(dependency.length);
          if (sub !== '' && sub !== '/testing' && !entryPoints.get(dependency)?.has(sub)) problems.push(`${where}: '${specifier}' reaches into ${dependency} past its entry points`);
          if (!((LAYERS[dependency] as number) < (LAYERS[name] as number))) problems.push(`${where}: '${specifier}' goes against the dependency direction`);
          if (test) continue;
          if (sub === '/testing') problems.push(`${where}: '${specifier}' is a test helper`);
        }
        if (test) continue;
        if (!declared.has(dependency)) problems.push(`${where}: '${specifier}' is not a dependency in ${relative(ROOT, join(dir, 'package.json'))}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('keep the runtime and the projections beside each other: neither imports the other, not even in a test', () => {
    const runtime = packages.find((p) => p.manifest.name === '@agent-ledger/runtime') as WorkspacePackage;
    const projections = packages.find((p) => p.manifest.name === '@agent-ledger/projections') as WorkspacePackage;
    const crossing = [
      ...sourceFiles(join(runtime.dir, 'src')).filter((f) => importsOf(f).some((s) => packageOf(s) === '@agent-ledger/projections')),
      ...sourceFiles(join(projections.dir, 'src')).filter((f) => importsOf(f).some((s) => packageOf(s) === '@agent-ledger/runtime')),
    ];
    expect(crossing.map((f) => relative(ROOT, f))).toEqual([]);
  });

  it('have no import cycle in their published code, not even a type-only one between two files', () => {
    expect(packages.flatMap((p) => importCycles(sourceFiles(join(p.dir, 'src')).filter((f) => !isTestFile(f))).map((cycle) => cycle.map((f) => relative(ROOT, f))))).toEqual([]);
  });

  it('finds a cycle when there is one (the check of the test above)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'agent-ledger-cycles-'));
    try {
      writeFileSync(join(dir, 'a.ts'), "import type { B } from './b';\nexport interface A { b: B }\n");
      writeFileSync(join(dir, 'b.ts'), "import type { A } from './a';\nexport interface B { a?: A }\n");
      writeFileSync(join(dir, 'c.ts'), "import type { A } from './a';\nexport type C = A;\n");
      expect(importCycles([join(dir, 'a.ts'), join(dir, 'b.ts'), join(dir, 'c.ts')]).map((cycle) => cycle.map((f) => relative(dir, f)).sort())).toEqual([['a.ts', 'b.ts']]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** The import cycles among `files` (their relative imports, type-only ones included): each a strongly connected set of two files or more. */
function importCycles(files: readonly string[]): string[][] {
  const known = new Set(files);
  const edges = new Map(
    files.map((file) => [
      file,
      importsOf(file)
        .filter((specifier) => specifier.startsWith('.'))
        .map((specifier) => resolve(dirname(file), specifier))
        .flatMap((target) => [`${target}.ts`, `${target}.tsx`, join(target, 'index.ts')].filter((candidate) => known.has(candidate)).slice(0, 1)),
    ]),
  );
  // Tarjan's strongly connected components.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, index.size);
    low.set(file, index.get(file) as number);
    stack.push(file);
    onStack.add(file);
    for (const next of edges.get(file) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file) as number, low.get(next) as number));
      } else if (onStack.has(next)) {
        low.set(file, Math.min(low.get(file) as number, index.get(next) as number));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop() as string;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1) cycles.push(component);
  };
  for (const file of files) if (!index.has(file)) visit(file);
  return cycles;
}
