import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigurationError } from '@agent-ledger/domain';
import { AgentsConfigError, PluginError } from '@agent-ledger/runtime';
import type { ServiceConfig } from './service-config';
import { readServiceConfig } from './service-config';
import { loadServiceDefinitions } from './service-definitions';

/**
 * The MCP server bindings of the three sources (the configuration file, a
 * plugin, the agents file) as `loadServiceDefinitions` gathers and checks
 * them, on files in a temporary folder. Nothing is started.
 */
describe('loadServiceDefinitions: MCP server bindings', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'agent-ledger-definitions-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const server = (name: string, tools: string) => `  - name: ${name}\n    transport: { type: stdio, command: node }\n    tools: ${tools}\n`;
  const agent = (name: string, tools: string[]) =>
    `  - { name: ${name}, instructions: x, tools: [${tools.join(', ')}], provider: { type: scripted, script: [{ final: done }] } }\n`;

  /** The service's configuration with the given files (absent: not written), as `serve` reads it. */
  function configOf(files: { config?: string; plugin?: string; agents?: string }, env: Record<string, string> = {}): ServiceConfig {
    const write = (name: string, text: string) => {
      writeFileSync(join(dir, name), text);
      return join(dir, name);
    };
    const configFile = write('agent-ledger.yaml', `${files.config ?? ''}${files.plugin === undefined ? '' : 'plugins: [./plugin.cjs]\n'}`);
    if (files.plugin !== undefined) write('plugin.cjs', files.plugin);
    return readServiceConfig(
      {
        AGENT_LEDGER_CONFIG: configFile,
        ...(files.agents === undefined ? {} : { AGENTS_CONFIG: write('agents.yaml', files.agents) }),
        ...env,
      },
      dir,
    );
  }

  /** The refusal's message (it must be refused). */
  async function refusalOf(config: ServiceConfig): Promise<Error> {
    const error = await loadServiceDefinitions(config).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(ConfigurationError);
    return error as Error;
  }

  const PLUGIN = `module.exports = {
  mcpServers: [{ name: 'tickets', transport: { type: 'http', url: 'https://mcp.example.com/mcp' }, tools: { search: { effect: 'READ_ONLY' } } }],
  agents: [{ name: 'triager', instructions: 'x', tools: ['tickets.search', 'fs.read_text_file'], provider: { type: 'scripted', script: [{ final: 'done' }] } }],
};
`;

  it("gathers the file's, the plugins' and the agents file's bindings, in that order; each source's tools known to the agents that may use them", async () => {
    const config = configOf({
      config: `mcpServers:\n${server('fs', '{ read_text_file: { effect: READ_ONLY } }')}`,
      plugin: PLUGIN,
      agents: `mcpServers:\n${server('git', '{ git_log: { effect: READ_ONLY } }')}agents:\n${agent('clerk', ['fs.read_text_file', 'tickets.search', 'git.git_log', 'clock.now'])}`,
    });
    const definitions = await loadServiceDefinitions(config);
    expect(definitions.mcpServers.map((binding) => [binding.name, binding.source])).toEqual([
      ['fs', join(dir, 'agent-ledger.yaml')],
      ['tickets', `plugin ${join(dir, 'plugin.cjs')}`],
      ['git', join(dir, 'agents.yaml')],
    ]);
    expect(definitions.plugins.mcpServers.map((binding) => binding.name)).toEqual(['tickets']);
    expect(definitions.agents.map((a) => [a.name, a.tools])).toEqual([
      ['clerk', ['fs.read_text_file', 'tickets.search', 'git.git_log', 'clock.now']],
      ['triager', ['tickets.search', 'fs.read_text_file']],
    ]);
    expect(Object.isFrozen(definitions.mcpServers)).toBe(true);
  });

  it("gives the file's and the plugins' bindings without an agents file", async () => {
    const definitions = await loadServiceDefinitions(configOf({ config: `mcpServers:\n${server('fs', '{ read_text_file: {} }')}`, plugin: PLUGIN }));
    expect(definitions.mcpServers.map((binding) => binding.name)).toEqual(['fs', 'tickets']);
  });

  it("does not offer the agents file's bound tools to a plugin's agents", async () => {
    const error = await refusalOf(
      configOf({ plugin: PLUGIN, agents: `mcpServers:\n${server('fs', '{ read_text_file: {} }')}agents:\n${agent('clerk', ['fs.read_text_file'])}` }),
    );
    expect(error).toBeInstanceOf(PluginError);
    expect(error.message).toContain('agent "triager": agents[0].tools[1] "fs.read_text_file" is not a known tool');
  });

  it('refuses a server name bound in two sources, naming both', async () => {
    const error = await refusalOf(
      configOf({
        config: `mcpServers:\n${server('tickets', '{ find: {} }')}`,
        plugin: PLUGIN.replace("'fs.read_text_file'", "'tickets.find'"),
        agents: `mcpServers:\n${server('tickets', '{ close: {} }')}agents:\n${agent('clerk', ['tickets.close'])}`,
      }),
    );
    expect(error.message).toBe(
      [
        'MCP server bindings refused (2 problems):',
        `  - MCP server "tickets" (plugin ${join(dir, 'plugin.cjs')}): the name is also bound in ${join(dir, 'agent-ledger.yaml')}: server names must be unique`,
        `  - MCP server "tickets" (${join(dir, 'agents.yaml')}): the name is also bound in ${join(dir, 'agent-ledger.yaml')}: server names must be unique`,
      ].join('\n'),
    );
  });

  it('refuses a server named as the first word of built-in tools', async () => {
    const error = await refusalOf(configOf({ config: `mcpServers:\n${server('files', '{ remove: {} }')}${server('clock', '{ tick: {} }')}` }));
    expect(error.message).toBe(
      [
        'MCP server bindings refused (2 problems):',
        `  - MCP server "files" (${join(dir, 'agent-ledger.yaml')}): "files" is the first word of built-in tools (files.append, files.list, files.read, files.write): name the server otherwise (reserved: clock, files, user)`,
        `  - MCP server "clock" (${join(dir, 'agent-ledger.yaml')}): "clock" is the first word of built-in tools (clock.now): name the server otherwise (reserved: clock, files, user)`,
      ].join('\n'),
    );
  });

  it("refuses a bound tool named as a plugin's tool or a test tool, naming it", async () => {
    const plugin = `module.exports = (api) => {
  class Comment { getEffect() { return api.ToolEffect.NON_IDEMPOTENT_WRITE; } async execute() { return null; } }
  api.Tool({ name: 'tickets.comment', description: 'Comments.', parameters: { type: 'object' } })(Comment);
  return { tools: [Comment] };
};
`;
    const error = await refusalOf(
      configOf(
        { config: `mcpServers:\n${server('tickets', '{ comment: {} }')}${server('ledger', '{ read: {} }')}`, plugin },
        { AGENT_LEDGER_TEST_LEDGER: join(dir, 'ledger.jsonl') },
      ),
    );
    expect(error.message).toBe(
      [
        'MCP server bindings refused (2 problems):',
        `  - MCP server "tickets" (${join(dir, 'agent-ledger.yaml')}): its tool comment is named "tickets.comment", the name of a tool of plugin ${join(dir, 'plugin.cjs')}: give it another with as`,
        `  - MCP server "ledger" (${join(dir, 'agent-ledger.yaml')}): its tool read is named "ledger.read", the name of a test tool (AGENT_LEDGER_TEST_LEDGER): give it another with as`,
      ].join('\n'),
    );
  });

  it("refuses an agents file's binding with its field, as the rest of the file", async () => {
    const error = await refusalOf(configOf({ agents: `mcpServers:\n  - name: fs\n    transport: { type: stdio }\n    tools: { read: {} }\nagents:\n${agent('clerk', ['fs.read'])}` }));
    expect(error).toBeInstanceOf(AgentsConfigError);
    expect((error as AgentsConfigError).issues).toEqual([{ path: 'mcpServers[0].transport.command', message: 'is required' }]);
  });
});
