/**
 * The starter `agent-ledger init` writes, proven in this process: its
 * `src/tools.ts` type-checks with its own `tsconfig.json` (strict) against
 * the packages' types (here their sources, where `@agent-ledger/*` resolve in
 * this repository), its compiled plugin loads from its `agent-ledger.yaml`,
 * and its agent completes a run in the service. The pack-and-install test
 * does the same from the packed tarballs, with `npm install`, `tsc` and
 * `agent-ledger serve`.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NestExpressApplication } from '@nestjs/platform-express';
import * as ts from 'typescript';
import type { CliOutput } from './cli-output';
import { ExitCode } from './cli-output';
import { init } from './init.command';
import { STARTER_AGENT } from './starter-files';
import type { OpenStores } from '../config/open-stores';
import { openStores } from '../config/open-stores';
import { readServiceConfig } from '../config/service-config';
import { loadServiceDefinitions } from '../config/service-definitions';
import { createServiceApp } from '../service-app';
import { scaled } from '../../../../test/support/time-scale';

const repo = join(__dirname, '..', '..', '..', '..');
const quiet: CliOutput = { out: () => undefined, err: () => undefined, isTTY: false };

describe('the starter of agent-ledger init (in-process)', () => {
  let dir: string;
  let app: NestExpressApplication | undefined;
  let stores: OpenStores | undefined;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'agent-ledger-starter-'));
    expect(init(join(dir, 'notes'), quiet, '0.0.0-test')).toBe(ExitCode.OK);
  });

  afterEach(async () => {
    try {
      await app?.close();
    } finally {
      await stores?.close();
      app = undefined;
      stores = undefined;
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('type-checks src/tools.ts with its strict tsconfig against the packages\' types', () => {
    const project = join(dir, 'notes');
    const parsed = ts.parseJsonConfigFileContent(JSON.parse(readFileSync(join(project, 'tsconfig.json'), 'utf8')), ts.sys, project);
    const program = ts.createProgram([join(project, 'src/tools.ts')], {
      ...parsed.options,
      noEmit: true,
      // Where an installed project finds the packages and @types/node: this repository's sources and node_modules.
      baseUrl: repo,
      paths: { '@agent-ledger/*': ['libs/*/src'] },
      typeRoots: [join(repo, 'node_modules/@types')],
      // The packages' sources stand for their declarations here, and lie outside the project's rootDir.
      rootDir: undefined,
    });
    const problems = ts
      .getPreEmitDiagnostics(program)
      .filter((d) => d.file?.fileName.startsWith(project) ?? true)
      .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    expect(problems).toEqual([]);
    expect(parsed.options.strict).toBe(true);
  });

  it("loads its compiled plugin from agent-ledger.yaml and completes a run of its agent, the note written in the service's workspace", async () => {
    const project = join(dir, 'notes');
    const compiled = ts.transpileModule(readFileSync(join(project, 'src/tools.ts'), 'utf8'), {
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, experimentalDecorators: true, emitDecoratorMetadata: true, esModuleInterop: true },
    });
    mkdirSync(join(project, 'dist'));
    writeFileSync(join(project, 'dist/tools.js'), compiled.outputText);

    const config = readServiceConfig(
      { AGENT_LEDGER_CONFIG: join(project, 'agent-ledger.yaml'), EVENTSTORE_CONNECTION_STRING: '', PORT: '0', WORKER_CONCURRENCY: '1', WORKER_PROCESSES: '0', REAPER_INTERVAL_MS: '0', CONSOLE_DIR: join(dir, 'console') },
      dir,
    );
    expect(config).toMatchObject({ plugins: [join(project, 'dist/tools.js')], agentsConfigPath: join(project, 'agents.yaml'), dataDir: join(project, 'data'), workspaceDir: join(project, 'data', 'workspace') });
    const { agents, plugins } = await loadServiceDefinitions(config);
    expect(plugins.plugins[0]?.toolNames).toEqual(['notes.read', 'notes.save']);
    // Copied into Jest's realm (see service-plugins.int-spec.ts).
    const copied = JSON.parse(JSON.stringify(agents)) as typeof agents;
    mkdirSync(config.workspaceDir, { recursive: true });
    stores = openStores(config);
    app = await createServiceApp({ config, stores, agents: copied, plugins, logger: false });
    await app.listen(0, '127.0.0.1');
    const { port } = app.getHttpServer().address() as AddressInfo;

    const response = await fetch(`http://127.0.0.1:${port}/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ agent: STARTER_AGENT, input: 'remember the groceries', mode: 'interactive' }),
    });
    expect(await response.json()).toMatchObject({ run: { status: 'COMPLETED', answer: 'Saved the groceries note and read it back: milk, bread' } });
    // In the workspace the tools were given (ToolContext.workspaceDir), not under the working directory.
    expect(readFileSync(join(config.workspaceDir, 'notes', 'groceries.txt'), 'utf8')).toBe('milk, bread');
    expect(existsSync(join(process.cwd(), 'data', 'notes'))).toBe(false);
  }, scaled(60_000));
});
