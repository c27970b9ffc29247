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
