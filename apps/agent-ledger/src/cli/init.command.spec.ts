import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { CliOutput } from './cli-output';
import { ExitCode } from './cli-output';
import { init } from './init.command';
import { ownVersion } from './own-version';
import { runCli } from './main';
import { packageNameOf } from './starter-files';

function capture(): CliOutput & { lines: string[]; errors: string[] } {
  const lines: string[] = [];
  const errors: string[] = [];
  return { lines, errors, out: (l) => lines.push(l), err: (l) => errors.push(l), isTTY: false };
}

describe('agent-ledger init', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'agent-ledger-init-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('writes the starter into a missing folder: package.json on this version, a strict tsconfig, the plugin, the agents, the settings, a five-line README', () => {
    const target = join(dir, 'My Notes');
    const output = capture();
    expect(init(target, output, '1.2.3')).toBe(ExitCode.OK);
    expect(readdirSync(target, { recursive: true }).map(String).sort()).toEqual(
      ['.gitignore', 'README.md', 'agent-ledger.yaml', 'agents.yaml', 'package.json', 'src', join('src', 'tools.ts'), 'tsconfig.json'].sort(),
    );
    const manifest = JSON.parse(readFileSync(join(target, 'package.json'), 'utf8')) as Record<string, Record<string, string>>;
    expect(manifest).toMatchObject({
      name: 'my-notes',
      private: true,
      scripts: { build: 'tsc -p tsconfig.json', serve: 'agent-ledger serve --config agent-ledger.yaml' },
      dependencies: { 'agent-ledger': '1.2.3', '@agent-ledger/domain': '1.2.3', '@agent-ledger/runtime': '1.2.3' },
      devDependencies: { typescript: expect.any(String) },
    });
    expect(JSON.parse(readFileSync(join(target, 'tsconfig.json'), 'utf8'))).toMatchObject({ compilerOptions: { strict: true, experimentalDecorators: true, outDir: 'dist', rootDir: 'src' } });
    const tools = readFileSync(join(target, 'src/tools.ts'), 'utf8');
    expect(tools).toContain("name: 'notes.read'");
    expect(tools).toContain('return ToolEffect.READ_ONLY;');
    expect(tools).toContain("name: 'notes.save'");
    expect(tools).toContain('return ToolEffect.IDEMPOTENT_WRITE;');
    expect(tools).toContain('export default definePlugin({ tools: [ReadNoteTool, SaveNoteTool] });');
    expect(parseYaml(readFileSync(join(target, 'agent-ledger.yaml'), 'utf8'))).toEqual({
      plugins: ['./dist/tools.js'],
      agents: { configFile: './agents.yaml' },
      store: { dataDir: './data' },
      server: { port: 3000 },
    });
    const agents = parseYaml(readFileSync(join(target, 'agents.yaml'), 'utf8')) as { agents: { name: string; tools: string[]; provider: { type: string } }[] };
    expect(agents.agents).toEqual([expect.objectContaining({ name: 'note-keeper', tools: ['notes.save', 'notes.read'], provider: expect.objectContaining({ type: 'scripted' }) })]);
    expect(readFileSync(join(target, 'agents.yaml'), 'utf8')).toContain('type: openai');
    expect(readFileSync(join(target, 'README.md'), 'utf8').trimEnd().split('\n')).toHaveLength(5);
    expect(output.lines.join('\n')).toContain(`Wrote a starter in ${target}`);
  });

  it('with --mcp, also binds the MCP filesystem server in the agents file with declared effects, gives it files/, depends on the version the tests run against, and adds an agent on its tools', async () => {
    const target = join(dir, 'with-mcp');
    const output = capture();
    expect(await runCli(['init', target, '--mcp'], output)).toBe(ExitCode.OK);
    expect(readdirSync(target, { recursive: true }).map(String).sort()).toEqual(
      ['.gitignore', 'README.md', 'agent-ledger.yaml', 'agents.yaml', 'files', join('files', 'README.md'), 'package.json', 'src', join('src', 'tools.ts'), 'tsconfig.json'].sort(),
    );
    const manifest = JSON.parse(readFileSync(join(target, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    const tested = (JSON.parse(readFileSync(join(__dirname, '..', '..', '..', '..', 'package.json'), 'utf8')) as { devDependencies: Record<string, string> }).devDependencies;
    expect(manifest.dependencies['@modelcontextprotocol/server-filesystem']).toBe(tested['@modelcontextprotocol/server-filesystem']);
    const agents = parseYaml(readFileSync(join(target, 'agents.yaml'), 'utf8')) as {
      mcpServers: { name: string; transport: { type: string; command: string; args: string[] }; tools: Record<string, { effect?: string }> }[];
      agents: { name: string; tools: string[]; approvals?: { preApproved: string[] } }[];
    };
    expect(agents.mcpServers).toEqual([
      {
        name: 'fs',
        transport: { type: 'stdio', command: 'node', args: ['./node_modules/@modelcontextprotocol/server-filesystem/dist/index.js', './files'] },
        tools: {
          read_text_file: { effect: 'READ_ONLY' },
          list_directory: { effect: 'READ_ONLY' },
          write_file: { effect: 'IDEMPOTENT_WRITE', operationDeadlineSeconds: 30 },
        },
      },
    ]);
    expect(agents.agents.map((agent) => [agent.name, agent.tools, agent.approvals?.preApproved])).toEqual([
      ['note-keeper', ['notes.save', 'notes.read'], ['notes.save']],
      ['file-clerk', ['fs.write_file', 'fs.read_text_file'], ['fs.write_file']],
    ]);
    expect(readFileSync(join(target, 'README.md'), 'utf8').trimEnd().split('\n')).toHaveLength(6);
    expect(output.lines.join('\n')).toContain('npx agent-ledger runs start --agent file-clerk');
  });

  it('writes into an empty folder that exists', () => {
    expect(init(dir, capture(), '1.2.3')).toBe(ExitCode.OK);
    expect(existsSync(join(dir, 'src/tools.ts'))).toBe(true);
  });

  it('refuses a folder that is not empty, naming it, and writes nothing', () => {
    writeFileSync(join(dir, 'notes.txt'), 'mine');
    mkdirSync(join(dir, '.git'));
    const output = capture();
    expect(init(dir, output, '1.2.3')).toBe(ExitCode.FAILURE);
    expect(output.errors).toEqual([expect.stringContaining(`agent-ledger init: ${dir} is not empty (`)]);
    expect(output.errors[0]).toContain('nothing was written');
    expect(readdirSync(dir).sort()).toEqual(['.git', 'notes.txt']);
    expect(readFileSync(join(dir, 'notes.txt'), 'utf8')).toBe('mine');
  });

  it('refuses a path that is a file', () => {
    writeFileSync(join(dir, 'file'), '');
    const output = capture();
    expect(init(join(dir, 'file'), output, '1.2.3')).toBe(ExitCode.FAILURE);
    expect(output.errors).toEqual([`agent-ledger init: ${join(dir, 'file')} is not a folder; nothing was written`]);
  });

  it('is a verb of the CLI, and depends on the version of agent-ledger it comes from', async () => {
    const target = join(dir, 'project');
    expect(await runCli(['init', target], capture())).toBe(ExitCode.OK);
    const manifest = JSON.parse(readFileSync(join(target, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect(manifest.dependencies['agent-ledger']).toBe(ownVersion());
    expect(ownVersion()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('makes an npm name of the folder name', () => {
    expect(packageNameOf('My Notes!')).toBe('my-notes');
    expect(packageNameOf('__')).toBe('agent-ledger-project');
  });
});
