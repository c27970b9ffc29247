import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadAgentsConfig } from './agents-config-loader';
import { parseAgentsConfig } from './agents-config';

const EXAMPLE = join(__dirname, '../../../../config/agents.example.yaml');
/** The built-in tools (libs/runtime/src/tools/builtin). */
const BUILT_IN_TOOLS = ['files.read', 'files.write', 'files.append', 'files.list', 'clock.now'];

describe('config/agents.example.yaml', () => {
  it('is valid and uses only built-in tools', async () => {
    const config = await loadAgentsConfig(EXAMPLE, { knownTools: BUILT_IN_TOOLS });
    expect(config.agents.map((agent) => agent.name)).toEqual(['file-clerk', 'time-teller']);
  });

  it('has a file-clerk that reads, writes, appends, then answers', async () => {
    const config = await loadAgentsConfig(EXAMPLE);
    const clerk = config.agents.find((agent) => agent.name === 'file-clerk');
    const script = clerk?.provider.type === 'scripted' ? clerk.provider.script : [];
    expect(script.map((round) => ('final' in round ? 'final' : round.toolCalls.map((call) => call.tool).join(',')))).toEqual([
      'files.read',
      'files.write',
      'files.append',
      'final',
    ]);
  });

  it('has a commented local-llm example that is valid once uncommented', async () => {
    const text = await readFile(EXAMPLE, 'utf8');
    const start = text.indexOf('  # - name: local-llm');
    expect(start).toBeGreaterThan(0);
    const uncommented = text.slice(0, start) + text.slice(start).replace(/^ {2}# ?/gm, '  ');
    const config = parseAgentsConfig(uncommented, 'uncommented example', { knownTools: BUILT_IN_TOOLS });
    expect(config.agents.find((agent) => agent.name === 'local-llm')?.provider).toEqual({
      type: 'openai',
      baseUrl: 'http://localhost:11434/v1',
      model: 'llama3.1',
      timeoutSeconds: 120,
      temperature: 0,
    });
  });
});
