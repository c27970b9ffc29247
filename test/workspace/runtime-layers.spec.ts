import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/*
 * The dependency direction of the packages holds inside the runtime too: its
 * folders are layers, and a folder imports only from its own layer or those
 * below it (docs/execution.md draws them). A folder missing here fails the
 * test, so a new one is placed on purpose.
 */
const RUNTIME_SRC = join(__dirname, '..', '..', 'libs', 'runtime', 'src');

/** Each folder's layer: lower layers never import higher ones. `.` is the package's root files. */
const LAYERS: Readonly<Record<string, number>> = {
  clock: 0,
  metrics: 0,
  tracing: 0,
  tools: 1,
  // The model providers and the agents' configuration check each other's shapes: one layer. The MCP server
  // bindings are read from the agents file: the same layer.
  models: 2,
  agents: 2,
  mcp: 2,
  persistence: 3,
  queue: 4,
  segment: 5,
  saga: 6,
  workers: 7,
  audit: 8,
  bus: 9,
  execution: 10,
  module: 11,
  plugins: 11,
  testing: 12,
  '.': 12,
};

function sourceFiles(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') && !/\.(spec|int-spec)\.ts$/.test(name) ? [path] : [];
  });
}

/** The top folder of a path under the runtime's src (`.` for a root file). */
function topFolder(path: string): string {
  const parts = relative(RUNTIME_SRC, path).split(sep);
  return parts.length === 1 ? '.' : (parts[0] as string);
}

/** Every relative import of `source`: `import ... from './x'`, `export ... from '../y'`. */
function relativeImports(source: string): string[] {
  return [...source.matchAll(/\bfrom\s+'(\.{1,2}\/[^']*)'/g)].map((match) => match[1] as string);
}

/** The imports of the runtime's source files that point from a lower layer to a higher one. */
function layerViolations(files: readonly { readonly file: string; readonly source: string }[]): string[] {
  const violations: string[] = [];
  for (const { file, source } of files) {
    const from = topFolder(file);
    for (const specifier of relativeImports(source)) {
      const to = topFolder(resolve(dirname(file), specifier));
      if (to === from) continue;
      const [fromLayer, toLayer] = [LAYERS[from], LAYERS[to]];
      if (fromLayer === undefined || toLayer === undefined || fromLayer >= toLayer) continue;
      violations.push(`${relative(RUNTIME_SRC, file)} (${from}) imports ${specifier} (${to})`);
    }
  }
  return violations;
}

describe("the runtime's folders are layers", () => {
  const files = sourceFiles(RUNTIME_SRC).map((file) => ({ file, source: readFileSync(file, 'utf8') }));

  it('places every folder in a layer', () => {
    const folders = [...new Set(files.map(({ file }) => topFolder(file)))].sort();
    expect(folders.filter((folder) => LAYERS[folder] === undefined)).toEqual([]);
  });

  it('never imports from a higher layer', () => {
    expect(layerViolations(files)).toEqual([]);
  });

  it('catches an import that points up, and allows one that points down', () => {
    const probe = (source: string) => [{ file: join(RUNTIME_SRC, 'persistence', 'probe.ts'), source }];
    expect(layerViolations(probe("import { WorkerPool } from '../workers/worker-pool';"))).toEqual([
      "persistence/probe.ts (persistence) imports ../workers/worker-pool (workers)",
    ]);
    expect(layerViolations(probe("import { CLOCK } from '../clock/clock';\nimport { x } from './run-streams';"))).toEqual([]);
  });
});
