import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadAgentsConfig } from './agents-config-loader';
import { parseAgentsConfig } from './agents-config';

const EXAMPLE = join(__dirname, '../../../../config/agents.example.yaml');
/** The built-in tools (libs/runtime/src/tools/builtin). */
const BUILT_IN_TOOLS = ['files.read', 'files.write', 'files.append', 'files.list', 'clock.now', 'user.ask'];

describe('config/agents.example.yaml', () => {
  it('is valid and uses only built-in tools', async () => {
    const config = await loadAgentsConfig(EXAMPLE, { knownTools: BUILT_IN_TOOLS });
    expect(config.agents.map((agent) => agent.name)).toEqual(['file-clerk', 'time-teller', 'ticket-asker']);
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

  it('pre-approves the file-clerk\'s files.write only (files.append waits for approval), and tells the model of a denial', async () => {
    const config = await loadAgentsConfig(EXAMPLE);
    const clerk = config.agents.find((agent) => agent.name === 'file-clerk');
    expect(clerk?.approvals).toEqual({ preApproved: ['files.write'], onDenial: 'tellModel' });
  });

  it('has a time-teller with the default approvals, and a ticket-asker that asks the user, reads the file named in the answer, then answers', async () => {
    const config = await loadAgentsConfig(EXAMPLE);
    expect(config.agents.find((agent) => agent.name === 'time-teller')?.approvals).toEqual({ preApproved: [], onDenial: 'endRun' });
    const asker = config.agents.find((agent) => agent.name === 'ticket-asker');
    expect(asker?.tools).toEqual(['user.ask', 'files.read']);
    const script = asker?.provider.type === 'scripted' ? asker.provider.script : [];
    expect(script.slice(0, 2)).toEqual([
      { toolCalls: [{ tool: 'user.ask', arguments: { question: 'Which file should I read?' } }] },
      { toolCalls: [{ tool: 'files.read', arguments: { path: '{{result:user.ask/answer}}' } }] },
    ]);
    expect(script[2]).toEqual({ final: expect.stringContaining('{{result:files.read/content}}') as string, finalIfFailed: expect.stringContaining('{{error:files.read}}') as string });
  });

  it('answers from what the runs recorded: every final answer has placeholders, file-clerk has one for a denial', async () => {
    const config = await loadAgentsConfig(EXAMPLE);
    for (const agent of config.agents) {
      const script = agent.provider.type === 'scripted' ? agent.provider.script : [];
      const last = script.at(-1);
      expect(last !== undefined && 'final' in last && last.final.includes('{{result:')).toBe(true);
    }
    const clerk = config.agents.find((agent) => agent.name === 'file-clerk');
    const last = clerk?.provider.type === 'scripted' ? clerk.provider.script.at(-1) : undefined;
    expect(last).toMatchObject({ finalIfDenied: expect.stringContaining('did not log it in clerk.log: {{error:files.append}}') as string });
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
