import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { scaled } from '../support/time-scale';
import type { PackedPackage } from './support/packed-project';
import { buildWorkspace, createProject, offerNativePrebuild, packWorkspaces, pinToTarballs, REPO_ROOT, run, runOk, serveProject } from './support/packed-project';

/*
 * agent-ledger as a user gets it: every package packed with `npm pack`, then
 * installed with `npm install` into a fresh project in a temporary folder,
 * outside this repository (its dependencies come from the registry, the
 * agent-ledger packages from the tarballs only). In that project a Nest host
 * application with its own write tool completes a run through
 * AgentLedgerModule, `npx agent-ledger serve` runs the same tool as a plugin
 * through the HTTP API (called with the installed typed client), and its
 * TypeScript, which imports every packed library's entry point, compiles
 * against the packages' type declarations with every strict flag TypeScript
 * has (`exactOptionalPropertyTypes` among them) and `skipLibCheck: false`.
 * Then, from an empty folder, `npx agent-ledger init --mcp`, `npm install`,
 * `npm run build` and `npm run serve` complete a run of the starter's agent,
 * whose tool writes its note in the service's workspace, and a run of its
 * agent on the MCP filesystem server's tools (installed from the registry),
 * which the service starts, and stops with itself.
 */

// better-sqlite3 compiles from source on an install that finds no prebuilt binary for its version (about 90 s)
const INSTALL_TIMEOUT_MS = scaled(600_000);
const COMMAND_TIMEOUT_MS = scaled(120_000);
const TEST_TIMEOUT_MS = 3 * COMMAND_TIMEOUT_MS;
const ROOT_MANIFEST = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };
const HOST_FIXTURE = join(__dirname, 'fixtures', 'host-project');

/**
 * Every flag of TypeScript 5.9 that makes its checking stricter, as the host
 * sets it: what `strict` turns on, spelled out, and what it leaves off.
 */
const STRICTEST: Readonly<Record<string, boolean>> = {
  strict: true,
  alwaysStrict: true,
  noImplicitAny: true,
  noImplicitThis: true,
  strictNullChecks: true,
  strictFunctionTypes: true,
  strictBindCallApply: true,
  strictPropertyInitialization: true,
  strictBuiltinIteratorReturn: true,
  useUnknownInCatchVariables: true,
  exactOptionalPropertyTypes: true,
  noUncheckedIndexedAccess: true,
  noImplicitOverride: true,
  noPropertyAccessFromIndexSignature: true,
  noImplicitReturns: true,
  noFallthroughCasesInSwitch: true,
  noUnusedLocals: true,
  noUnusedParameters: true,
  noUncheckedSideEffectImports: true,
  allowUnreachableCode: false,
  allowUnusedLabels: false,
  forceConsistentCasingInFileNames: true,
  skipLibCheck: false,
  skipDefaultLibCheck: false,
};

describe('the packages, packed and installed into a fresh project', () => {
  let workDir: string;
  let tarballs: string;
  let project: string;
  let packed: PackedPackage[];
  let installEnv: NodeJS.ProcessEnv;

  beforeAll(() => {
    workDir = realpathSync(mkdtempSync(join(tmpdir(), 'agent-ledger-packed-')));
    tarballs = join(workDir, 'tarballs');
    project = join(workDir, 'my-agents');
    mkdirSync(tarballs);
    mkdirSync(project);
    buildWorkspace(COMMAND_TIMEOUT_MS);
    packed = packWorkspaces(tarballs, COMMAND_TIMEOUT_MS);
    installEnv = offerNativePrebuild(join(workDir, 'prebuilds'), COMMAND_TIMEOUT_MS);
    createProject(project, packed, tarballs, {
      fixture: HOST_FIXTURE,
      devDependencies: { typescript: ROOT_MANIFEST.devDependencies['typescript'] as string, '@types/node': ROOT_MANIFEST.devDependencies['@types/node'] as string },
      env: installEnv,
      timeoutMs: INSTALL_TIMEOUT_MS,
    });
  }, INSTALL_TIMEOUT_MS + 2 * COMMAND_TIMEOUT_MS);

  afterAll(() => {
    if (workDir !== undefined) rmSync(workDir, { recursive: true, force: true });
  });

  it('packs every library and the service, with nothing of the tests and no TypeScript sources', () => {
    expect(packed.map((p) => p.name).sort()).toEqual(
      expect.arrayContaining(['@agent-ledger/domain', '@agent-ledger/event-store', '@agent-ledger/http', '@agent-ledger/module', '@agent-ledger/projections', '@agent-ledger/runtime', 'agent-ledger']),
    );
    for (const pkg of packed) {
      const paths = pkg.files.map((f) => f.path);
      const leaked = paths.filter((p) => /(^|\/)(testing|test)\//.test(p) || /\.(spec|int-spec|e2e-spec|sim-spec)\./.test(p) || (/\.ts$/.test(p) && !p.endsWith('.d.ts')) || p.endsWith('.tsbuildinfo'));
      expect({ name: pkg.name, leaked }).toEqual({ name: pkg.name, leaked: [] });
      expect({ name: pkg.name, manifest: paths.includes('package.json') }).toEqual({ name: pkg.name, manifest: true });
      if (pkg.name === 'agent-ledger') expect(paths).toEqual(expect.arrayContaining(['bin/agent-ledger.js', 'dist/main.js', 'dist/cli/main.js']));
      else expect({ name: pkg.name, types: paths.includes('dist/index.d.ts') }).toEqual({ name: pkg.name, types: true });
      if (pkg.name === '@agent-ledger/http') expect(paths).toEqual(expect.arrayContaining(['console/index.html']));
    }
  }, TEST_TIMEOUT_MS);

  it('installs the packages from the tarballs, as copies inside the project: nothing resolves into this repository', () => {
    const script = `for (const name of ${JSON.stringify(packed.map((p) => p.name).filter((n) => n !== 'agent-ledger'))}) console.log(require('fs').realpathSync(require.resolve(name)))`;
    const { stdout } = runOk(process.execPath, ['-e', script], project, { timeoutMs: COMMAND_TIMEOUT_MS });
    const resolved = stdout.trim().split('\n');
    expect(resolved).toHaveLength(packed.length - 1);
    for (const path of resolved) {
      expect(path.startsWith(join(project, 'node_modules') + sep)).toBe(true);
      expect(relative(REPO_ROOT, path).startsWith('..')).toBe(true);
    }
    const bin = realpathSync(join(project, 'node_modules', '.bin', 'agent-ledger'));
    expect(bin).toBe(join(project, 'node_modules', 'agent-ledger', 'bin', 'agent-ledger.js'));
  }, TEST_TIMEOUT_MS);

  it("compiles the host's TypeScript, which imports every library's entry point, against the packages' declarations with every strict flag and skipLibCheck off", () => {
    const { compilerOptions } = JSON.parse(readFileSync(join(project, 'tsconfig.json'), 'utf8')) as { compilerOptions: Record<string, unknown> };
    expect(Object.fromEntries(Object.keys(STRICTEST).map((flag) => [flag, compilerOptions[flag]]))).toEqual(STRICTEST);
    // Every packed package that declares types is imported; the service (agent-ledger) is a command, with no entry point to import.
    const manifests = packed.map((p) => ({ name: p.name, ...(JSON.parse(readFileSync(join(project, 'node_modules', p.name, 'package.json'), 'utf8')) as { types?: string; main?: string; bin?: unknown }) }));
    const importable = manifests.filter((m) => m.types !== undefined).map((m) => m.name);
    expect(manifests.filter((m) => m.types === undefined).map((m) => ({ name: m.name, main: m.main, bin: m.bin !== undefined }))).toEqual([{ name: 'agent-ledger', main: undefined, bin: true }]);
    const entryPoints = readFileSync(join(project, 'src', 'entry-points.ts'), 'utf8');
    const imported = [...entryPoints.matchAll(/^import \* as \w+ from '([^']+)';$/gm)].map((match) => match[1]);
    expect(imported.sort()).toEqual(importable.sort());
    const result = run('npx', ['tsc', '-p', 'tsconfig.json'], project, { timeoutMs: COMMAND_TIMEOUT_MS });
    expect({ status: result.status, output: result.stdout + result.stderr }).toEqual({ status: 0, output: '' });
  }, TEST_TIMEOUT_MS);

  it('refuses, at compile time, a tool whose effect is not a ToolEffect (the declarations are typed, not any)', () => {
    const bad = join(project, 'src', 'bad-effect.ts');
    writeFileSync(
      bad,
      [
        "import { ToolEffect } from '@agent-ledger/domain';",
        "import type { DeclaresToolEffect } from '@agent-ledger/domain';",
        'export class Bad implements DeclaresToolEffect {',
        "  getEffect(): ToolEffect { return 'WRITE'; }",
        '}',
      ].join('\n'),
    );
    try {
      const result = run('npx', ['tsc', '-p', 'tsconfig.json', '--noEmit'], project, { timeoutMs: COMMAND_TIMEOUT_MS });
      expect(result.status).not.toBe(0);
      expect(result.stdout).toContain("src/bad-effect.ts(4,29): error TS2322: Type '\"WRITE\"' is not assignable to type 'ToolEffect'.");
    } finally {
      rmSync(bad);
    }
  }, TEST_TIMEOUT_MS);

  it("completes a run with the project's own write tool through AgentLedgerModule: the write ran once, with its idempotency key, and is audited", () => {
    runOk('npx', ['tsc', '-p', 'tsconfig.json'], project, { timeoutMs: COMMAND_TIMEOUT_MS });
    const dataDir = join(project, 'data-host');
    mkdirSync(dataDir);
    const { stdout } = runOk(process.execPath, ['dist/host.js', dataDir], project, { timeoutMs: COMMAND_TIMEOUT_MS });
    const { started, totals } = JSON.parse(stdout) as { started: { runId: string; status: string; run: { answer: string } }; totals: Record<string, number> };
    expect(started).toMatchObject({ status: 'COMPLETED', run: { answer: 'Signed.' } });
    expect(readFileSync(join(dataDir, 'guestbook.txt'), 'utf8')).toBe(`Ada\tagent-ledger:${started.runId}/r0/t0\n`);
    expect(totals).toMatchObject({ writes: 1, writesExecuted: 1, writesAudited: 1, writesWithoutAudit: 0 });
  }, TEST_TIMEOUT_MS);
  it('serves the same tool as a plugin with npx agent-ledger serve: a run through the HTTP API (the installed client calling) writes once, with its idempotency key', async () => {
    runOk('npx', ['tsc', '-p', 'tsconfig.json'], project, { timeoutMs: COMMAND_TIMEOUT_MS });
    const dataDir = join(project, 'data-serve');
    const guestbook = join(project, 'guestbook-serve.txt');
    const served = await serveProject(project, { AGENT_LEDGER_PLUGINS: './dist/plugin.js', AGENT_LEDGER_DATA_DIR: dataDir, PORT: '0', GUESTBOOK_FILE: guestbook }, COMMAND_TIMEOUT_MS);
    try {
      expect(served.output()).toContain('plugins: ');
      const { stdout } = runOk(process.execPath, ['dist/call.js', served.baseUrl, 'greeter'], project, { timeoutMs: COMMAND_TIMEOUT_MS });
      const { agents, started } = JSON.parse(stdout) as { agents: { name: string; tools: { name: string; effect: string }[] }[]; started: { runId: string; run: { status: string; answer: string } } };
      expect(agents.find((a) => a.name === 'greeter')?.tools).toEqual([expect.objectContaining({ name: 'guestbook.sign', effect: 'NON_IDEMPOTENT_WRITE' })]);
      expect(started.run).toMatchObject({ status: 'COMPLETED', answer: 'Signed.' });
      expect(readFileSync(guestbook, 'utf8')).toBe(`Grace\tagent-ledger:${started.runId}/r0/t0\n`);
    } finally {
      expect(await served.stop()).toEqual({ leftovers: [] });
      expect(served.output()).toContain('SIGTERM: shutting down');
    }
  }, TEST_TIMEOUT_MS);

  describe('agent-ledger init --mcp, from an empty folder to completed runs', () => {
    let starter: string;
    let runId: string | undefined;

    beforeAll(() => {
      // The CLI that writes the starter: the packed one, installed in the host project above.
      starter = join(workDir, 'my-notes');
      mkdirSync(starter);
      runOk(join(project, 'node_modules', '.bin', 'agent-ledger'), ['init', starter, '--mcp'], workDir, { timeoutMs: COMMAND_TIMEOUT_MS });
      pinToTarballs(starter, packed, tarballs);
      runOk('npm', ['install', '--no-audit', '--no-fund'], starter, { env: installEnv, timeoutMs: INSTALL_TIMEOUT_MS });
    }, INSTALL_TIMEOUT_MS + COMMAND_TIMEOUT_MS);

    it('writes a starter that builds with its strict tsconfig', () => {
      expect(readdirSync(starter).sort()).toEqual(expect.arrayContaining(['README.md', 'agent-ledger.yaml', 'agents.yaml', 'package.json', 'src', 'tsconfig.json']));
      runOk('npm', ['run', 'build'], starter, { timeoutMs: COMMAND_TIMEOUT_MS });
      expect(existsSync(join(starter, 'dist', 'tools.js'))).toBe(true);
    }, TEST_TIMEOUT_MS);

    it("serves it with npm run serve, and the starter's agent completes a run with its own read and write tools, the note written in the service's workspace", async () => {
      if (!existsSync(join(starter, 'dist', 'tools.js'))) runOk('npm', ['run', 'build'], starter, { timeoutMs: COMMAND_TIMEOUT_MS });
      // The workspace outside the project's folder: the tools keep their files where the service says, not where it runs.
      const workspace = join(workDir, 'starter-workspace');
      const served = await serveProject(starter, { PORT: '0', WORKSPACE_DIR: workspace }, COMMAND_TIMEOUT_MS, ['--config', 'agent-ledger.yaml']);
      try {
        const response = await fetch(`${served.baseUrl}/runs`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ agent: 'note-keeper', input: 'Remember: milk, bread', mode: 'interactive' }),
        });
        const body = (await response.json()) as { runId: string; run: { status: string; answer: string } };
        expect({ status: response.status, run: body.run.status, answer: body.run.answer }).toEqual({ status: 200, run: 'COMPLETED', answer: 'Saved the groceries note and read it back: milk, bread' });
        // The steps read model follows the store a few milliseconds behind: the run is found at once, its steps may come a moment later.
        const deadline = Date.now() + COMMAND_TIMEOUT_MS;
        let toolSteps: (string | null)[][] = [];
        while (toolSteps.length < 2 && Date.now() < deadline) {
          const answer = await fetch(`${served.baseUrl}/runs/${body.runId}/steps`);
          const steps = (await answer.json()) as { steps: { toolName: string | null; effect: string | null }[] };
          expect({ status: answer.status, steps: Array.isArray(steps.steps) }).toEqual({ status: 200, steps: true });
          toolSteps = steps.steps.filter((step) => step.toolName !== null).map((step) => [step.toolName, step.effect]);
          if (toolSteps.length < 2) await new Promise((resolve) => setTimeout(resolve, 100));
        }
        expect(toolSteps).toEqual([
          ['notes.save', 'IDEMPOTENT_WRITE'],
          ['notes.read', 'READ_ONLY'],
        ]);
        expect(readFileSync(join(workspace, 'notes', 'groceries.txt'), 'utf8')).toBe('milk, bread');
        expect(existsSync(join(starter, 'data', 'notes'))).toBe(false);
        runId = body.runId;

        // The MCP filesystem server the starter binds, started by the service in the project's folder, writes in ./files.
        expect(served.output()).toMatch(/; mcp: fs \(stdio, pid \d+, 3 tools\)/);
        const clerk = await fetch(`${served.baseUrl}/runs`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ agent: 'file-clerk', input: 'Keep: milk, bread', mode: 'interactive' }),
        });
        const clerkBody = (await clerk.json()) as { run: { status: string; answer: string } };
        expect({ status: clerk.status, run: clerkBody.run.status, answer: clerkBody.run.answer }).toEqual({ status: 200, run: 'COMPLETED', answer: 'Wrote groceries.txt and read it back: milk, bread' });
        expect(readFileSync(join(starter, 'files', 'groceries.txt'), 'utf8')).toBe('milk, bread');
      } finally {
        expect(await served.stop()).toEqual({ leftovers: [] });
        expect(served.output()).toContain('SIGTERM: shutting down');
      }
    }, TEST_TIMEOUT_MS);

    it("audit review in the starter's folder reviews the store the service wrote: with --config, that run's write audited; without, a warning naming --config", () => {
      if (runId === undefined) throw new Error('the run of the test before did not complete');
      const cli = join(starter, 'node_modules', '.bin', 'agent-ledger');
      const configFile = join(starter, 'agent-ledger.yaml');
      type Review = { stores: { runStore: { kind: string; location: string }; configFile: string | null; unreadConfigFiles: string[] }; review: { writes: { runId: string; audited: boolean }[] } };
      const given = runOk(cli, ['audit', 'review', '--json', '--config', 'agent-ledger.yaml'], starter, { timeoutMs: COMMAND_TIMEOUT_MS });
      const report = JSON.parse(given.stdout) as Review;
      expect(report.stores).toMatchObject({ runStore: { kind: 'sqlite', location: join(realpathSync(starter), 'data', 'agent-ledger.sqlite') }, configFile: realpathSync(configFile), unreadConfigFiles: [] });
      expect(report.review.writes.filter((w) => w.runId === runId)).toEqual([expect.objectContaining({ runId, audited: true })]);
      expect(given.stderr).toBe('');

      const text = runOk(cli, ['audit', 'review'], starter, { timeoutMs: COMMAND_TIMEOUT_MS });
      expect(text.stdout.split('\n')[0]).toMatch(/^Stores read: embedded SQLite .*agent-ledger\.sqlite \(store [0-9a-f-]{36}\); settings from the environment and the defaults, no configuration file$/);
      expect(text.stderr).toContain('agent-ledger.yaml was not read (no --config, AGENT_LEDGER_CONFIG unset)');
      expect(text.stderr).toContain('agent-ledger audit review --config ');
    }, TEST_TIMEOUT_MS);
  });
});
