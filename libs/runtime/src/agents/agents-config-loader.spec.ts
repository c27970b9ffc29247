import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadAgentsConfig } from './agents-config-loader';
import { AgentsConfigError } from './agents-config.error';

describe('loadAgentsConfig', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agents-config-'));
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads and validates a JSON file', async () => {
    const path = join(dir, 'agents.json');
    await writeFile(path, JSON.stringify({ agents: [{ name: 'a', instructions: 'x', provider: { type: 'scripted', script: [{ final: 'hi' }] } }] }));
    const config = await loadAgentsConfig(path);
    expect(config.agents.map((agent) => agent.name)).toEqual(['a']);
  });

  it("gives the file's MCP server bindings the file as their source and its folder as their base folder", async () => {
    const path = join(dir, 'with-mcp.yaml');
    await writeFile(
      path,
      [
        'mcpServers:',
        '  - name: fs',
        '    transport: { type: stdio, command: ./bin/server, cwd: work }',
        '    tools: { read_text_file: { effect: READ_ONLY } }',
        'agents:',
        '  - { name: a, instructions: x, tools: [fs.read_text_file], provider: { type: scripted, script: [{ final: hi }] } }',
      ].join('\n'),
    );
    const [server] = (await loadAgentsConfig(path, { knownTools: [] })).mcpServers;
    expect(server).toMatchObject({ source: path, baseDir: dir, transport: { command: join(dir, 'bin', 'server'), cwd: join(dir, 'work') } });
  });

  it('names the file in the error of an invalid file', async () => {
    const path = join(dir, 'bad.yaml');
    await writeFile(path, 'agents:\n  - name: A\n');
    await expect(loadAgentsConfig(path)).rejects.toMatchObject({ source: path, issues: expect.arrayContaining([{ path: 'agents[0].name', message: expect.any(String) }]) });
  });

  it('refuses a file that cannot be read, with the reason', async () => {
    const path = join(dir, 'missing.yaml');
    const error: unknown = await loadAgentsConfig(path).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentsConfigError);
    expect((error as AgentsConfigError).source).toBe(path);
    expect((error as AgentsConfigError).issues).toEqual([{ path: '', message: expect.stringMatching(/^cannot be read \(ENOENT\)/) }]);
  });
});
