import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigurationError, ToolEffect } from '@agent-ledger/domain';
import type { DeclaresToolEffect, JsonValue, ModelResponse } from '@agent-ledger/domain';
import type { AgentDefinition } from '../agents/agent-definition';
import { createModelProvider } from '../models/model-provider-factory';
import type { ModelProvider } from '../models/model-provider';
import type { AgentTool } from '../tools/agent-tool';
import { Tool } from '../tools/tool.decorator';
import { definePlugin } from './plugin';
import type { PluginApi } from './plugin-api';
import { pluginApi } from './plugin-api';
import { PluginError } from './plugin.error';
import type { LoadedPlugins } from './plugin-loader';
import { loadPlugins, mergePluginAgents } from './plugin-loader';

const PARAMETERS = { type: 'object', properties: {}, additionalProperties: false } as const;

@Tool({ name: 'tickets.search', description: 'Searches tickets.', parameters: PARAMETERS })
class SearchTicketsTool implements AgentTool, DeclaresToolEffect {
  getEffect() {
    return ToolEffect.READ_ONLY;
  }
  async execute(): Promise<JsonValue> {
    return [];
  }
}

@Tool({ name: 'tickets.comment', description: 'Comments on a ticket.', parameters: PARAMETERS })
class CommentTool implements AgentTool, DeclaresToolEffect {
  getEffect() {
    return ToolEffect.NON_IDEMPOTENT_WRITE;
  }
  async execute(): Promise<JsonValue> {
    return 'ok';
  }
}

/** A tool class with `@Tool` and the given effect declaration (`undefined`: none). */
function toolNamed(name: string, getEffect?: () => unknown): new () => AgentTool {
  class Made {
    async execute(): Promise<JsonValue> {
      return null;
    }
  }
  if (getEffect !== undefined) Object.defineProperty(Made.prototype, 'getEffect', { value: getEffect });
  Tool({ name, description: `The ${name} tool.`, parameters: PARAMETERS })(Made);
  return Made;
}

const echoProvider = (): ModelProvider => ({ respond: async (): Promise<ModelResponse> => ({ type: 'final', content: 'echo' }) });

const triager = {
  name: 'triager',
  instructions: 'Triage the ticket.',
  tools: ['tickets.search', 'tickets.comment', 'clock.now'],
  provider: { type: 'scripted', script: [{ toolCalls: [{ tool: 'tickets.search' }] }, { final: 'done' }] },
};

/** Loads `plugins` (file -> what the module exports) as if from files. */
function load(plugins: Readonly<Record<string, unknown>>, options: { knownTools?: readonly string[] } = {}): Promise<LoadedPlugins> {
  return loadPlugins(Object.keys(plugins), {
    knownTools: options.knownTools ?? ['clock.now', 'files.read'],
    load: async (file) => plugins[file],
  });
}

/** The problems of the refusal, as `file: message` lines. */
async function refusal(plugins: Readonly<Record<string, unknown>>): Promise<string[]> {
  try {
    await load(plugins);
  } catch (error) {
    if (!(error instanceof PluginError)) throw error;
    expect(error).toBeInstanceOf(ConfigurationError);
    for (const problem of error.problems) expect(error.message).toContain(`plugin ${problem.file}: ${problem.message}`);
    return error.problems.map((problem) => `${problem.file}: ${problem.message}`);
  }
  throw new Error('the plugins were accepted');
}

describe('loadPlugins', () => {
  it('loads tools, agents and model providers, the agents validated as in the agents file (defaults applied)', async () => {
    const loaded = await load({
      '/p/tickets.js': definePlugin({ tools: [SearchTicketsTool, CommentTool], agents: [triager] }),
      '/p/models.mjs': { modelProviders: { echo: echoProvider }, agents: [{ name: 'echoer', instructions: 'Echo.', provider: { type: 'echo', model: 'small', temperature: 0 } }] },
    });
    expect(loaded.tools).toEqual([SearchTicketsTool, CommentTool]);
    expect(loaded.plugins.map((p) => [p.file, p.toolNames, p.agents.map((a) => a.name), p.modelProviderTypes])).toEqual([
      ['/p/tickets.js', ['tickets.search', 'tickets.comment'], ['triager'], []],
      ['/p/models.mjs', [], ['echoer'], ['echo']],
    ]);
    expect(loaded.agents[0]).toMatchObject({ name: 'triager', maxIterations: 20, approvals: { preApproved: [], onDenial: 'endRun' }, provider: { type: 'scripted' } });
    expect(loaded.agents[1]?.provider).toEqual({ type: 'plugin', pluginType: 'echo', settings: { model: 'small', temperature: 0 } });
    expect(Object.keys(loaded.modelProviders)).toEqual(['echo']);
    // The registry of provider factories builds the plugin's provider for an agent of its type.
    const provider = createModelProvider((loaded.agents[1] as AgentDefinition).provider, { providers: loaded.modelProviders });
    await expect(provider.respond({} as never)).resolves.toEqual({ type: 'final', content: 'echo' });
  });

  it('takes the default export (ES module namespace, CommonJS compiled from export default) and calls a function export with the plugin API', async () => {
    const namespace = Object.defineProperty({ default: { tools: [SearchTicketsTool] } }, Symbol.toStringTag, { value: 'Module' });
    let given: PluginApi | undefined;
    const loaded = await load({
      '/p/esm.mjs': namespace,
      '/p/compiled.js': { __esModule: true, default: { tools: [CommentTool] }, CommentTool },
      '/p/function.js': async (api: PluginApi) => {
        given = api;
        return api.definePlugin({ tools: [toolNamed('notes.read', () => api.ToolEffect.READ_ONLY)] });
      },
    });
    expect(loaded.plugins.map((p) => p.toolNames)).toEqual([['tickets.search'], ['tickets.comment'], ['notes.read']]);
    expect(given).toBe(pluginApi);
  });

  it('recognises a tool class decorated by another copy of the runtime (its metadata under Symbol.for only)', async () => {
    class FromAnotherCopy {
      getEffect() {
        return 'IDEMPOTENT_WRITE';
      }
      async execute() {
        return null;
      }
    }
    Object.defineProperty(FromAnotherCopy, Symbol.for('agent-ledger:tool'), { value: { name: 'crm.update', description: 'Updates.', parameters: { type: 'object' } } });
    expect((await load({ '/p/other.js': { tools: [FromAnotherCopy] } })).plugins[0]?.toolNames).toEqual(['crm.update']);
  });

  it('loads nothing when no plugin is named', async () => {
    expect(await loadPlugins([])).toMatchObject({ plugins: [], tools: [], agents: [], modelProviders: {}, mcpServers: [] });
  });

  it.each<[string, unknown, string]>([
    ['a string', 'tools', 'exports the string "tools", not a plugin: export default definePlugin({ tools, agents, modelProviders, mcpServers })'],
    ['a list', [SearchTicketsTool], 'exports a list, not a plugin'],
    ['a class', SearchTicketsTool, 'exports a class (SearchTicketsTool), not a plugin: export { tools: [SearchTicketsTool] }'],
    ['an unknown key', { tools: [SearchTicketsTool], tool: [CommentTool] }, 'exports a plugin with the key "tool", which is not a plugin key (known: tools, agents, modelProviders, mcpServers)'],
    ['an empty plugin', {}, 'exports a plugin with nothing in it (none of tools, agents, modelProviders, mcpServers)'],
    ['a misspelt mcpServers', { mcpServer: [] }, 'exports a plugin with the key "mcpServer", which is not a plugin key (known: tools, agents, modelProviders, mcpServers)'],
    ['tools that are not a list', { tools: SearchTicketsTool }, 'tools must be a list of tool classes, not a function (SearchTicketsTool)'],
    ['a function export that throws', () => { throw new Error('no config'); }, 'exports a plugin function that failed: no config'],
  ])('refuses an export that is not a plugin object: %s', async (_what, exported, message) => {
    expect(await refusal({ '/p/bad.js': exported })).toEqual([expect.stringContaining(`/p/bad.js: ${message}`)]);
  });

  it('refuses a tool class without @Tool, naming the file and the class', async () => {
    class PlainTool {
      async execute() {
        return null;
      }
    }
    expect(await refusal({ '/p/plain.js': { tools: [PlainTool] } })).toEqual([
      expect.stringMatching(/^\/p\/plain\.js: tools\[0\] \(class PlainTool\) is not decorated with @Tool\(\{ name, description, parameters \}\)/),
    ]);
  });

  it('refuses a tool that declares no effect, READ_ONLY included, naming the file and the tool', async () => {
    expect(await refusal({ '/p/tools.js': { tools: [SearchTicketsTool, toolNamed('notes.write')] } })).toEqual([
      '/p/tools.js: tool "notes.write" (tools[1], class Made) declares no effect: implement getEffect() returning one of ToolEffect.READ_ONLY, ToolEffect.IDEMPOTENT_WRITE, ToolEffect.NON_IDEMPOTENT_WRITE (in a plugin, a read-only tool declares READ_ONLY too)',
    ]);
  });

  it('refuses a tool whose getEffect() returns something else than an effect, or throws, naming the tool', async () => {
    const problems = await refusal({
      '/p/tools.js': {
        tools: [
          toolNamed('notes.write', () => 'WRITE'),
          toolNamed('notes.dynamic', function (this: { mode?: string }) {
            if (this.mode === undefined) throw new Error('mode not set');
            return ToolEffect.READ_ONLY;
          }),
        ],
      },
    });
    expect(problems).toEqual([
      '/p/tools.js: tool "notes.write" (tools[0], class Made) declares an invalid effect: getEffect() returned "WRITE", not one of ToolEffect.READ_ONLY, ToolEffect.IDEMPOTENT_WRITE, ToolEffect.NON_IDEMPOTENT_WRITE',
      expect.stringContaining('/p/tools.js: tool "notes.dynamic" (tools[1], class Made) declares its effect with a getEffect() that threw (mode not set): it must return a constant'),
    ]);
  });

  it('refuses two tools of one name, in one plugin or across two (naming both files), and a tool named as a built-in', async () => {
    const problems = await refusal({
      '/p/a.js': { tools: [SearchTicketsTool, toolNamed('files.read', () => ToolEffect.READ_ONLY)] },
      '/p/b.js': { tools: [toolNamed('tickets.search', () => ToolEffect.READ_ONLY)] },
      '/p/c.js': { tools: [CommentTool, CommentTool] },
    });
    expect(problems).toEqual([
      '/p/c.js: tool "tickets.comment" (tools[1], class CommentTool) has the name of tools[0]: tool names must be unique',
      expect.stringMatching(/^\/p\/a\.js: tool "files\.read" collides with a built-in tool of the same name \(built-in: .*files\.read/),
      '/p/b.js: tool "tickets.search" is also registered by plugin /p/a.js: tool names must be unique',
    ]);
  });

  it('refuses a model provider type of a built-in type, registered twice, or that is not a factory', async () => {
    const problems = await refusal({
      '/p/a.js': { modelProviders: { openai: echoProvider, echo: echoProvider, plugin: echoProvider } },
      '/p/b.js': { modelProviders: { echo: echoProvider, 'Bad Name': echoProvider, broken: 'nope' } },
    });
    expect(problems).toEqual([
      '/p/b.js: model provider type "Bad Name" must be lower-case letters, digits and "-", starting with a letter or digit, at most 63 characters',
      '/p/b.js: model provider type "broken" must be a factory (settings, context) => ModelProvider, not the string "nope"',
      '/p/a.js: model provider type "openai" collides with a built-in type (scripted, openai, anthropic; "plugin" is reserved)',
      '/p/a.js: model provider type "plugin" collides with a built-in type (scripted, openai, anthropic; "plugin" is reserved)',
    ]);
    // b.js was refused as a whole (a bad entry), so its "echo" is not compared with a.js's.
    expect(await refusal({ '/p/a.js': { modelProviders: { echo: echoProvider } }, '/p/b.js': { modelProviders: { echo: echoProvider } } })).toEqual([
      '/p/b.js: model provider type "echo" is also registered by plugin /p/a.js: provider types must be unique',
    ]);
  });

  it('refuses an agent defined by two plugins, an invalid agent (field named), a tool no one provides and an unknown provider type', async () => {
    const problems = await refusal({
      '/p/a.js': { tools: [SearchTicketsTool, CommentTool], agents: [triager] },
      '/p/b.js': {
        agents: [
          triager,
          { name: 'lost', instructions: 'x', tools: ['tickets.close'], provider: { type: 'scripted', script: [{ final: 'x' }] } },
          { name: 'remote', instructions: 'x', provider: { type: 'claude', model: 'x' } },
          { name: 'Bad', instructions: '', provider: { type: 'scripted', script: [{ final: 'x' }] }, effect: 'READ_ONLY' },
        ],
      },
    });
    expect(problems).toEqual([
      expect.stringMatching(/^\/p\/b\.js: agent "lost": agents\[1\]\.tools\[0\] "tickets\.close" is not a known tool \(known: clock\.now, files\.read, tickets\.search, tickets\.comment\)$/),
      '/p/b.js: agent "remote": agents[2].provider.type must be one of scripted, openai, anthropic, not "claude"',
      expect.stringMatching(/^\/p\/b\.js: agent "Bad": agents\[3\]\.effect is refused: tool effects are declared in code/),
      expect.stringMatching(/^\/p\/b\.js: agent "Bad": agents\[3\]\.name must be/),
      expect.stringMatching(/^\/p\/b\.js: agent "Bad": agents\[3\]\.instructions /),
      '/p/b.js: agent "triager" is also defined by plugin /p/a.js: agent names must be unique',
    ]);
  });

  it('refuses an API key in the settings of a plugin provider', async () => {
    expect(
      await refusal({ '/p/a.js': { modelProviders: { echo: echoProvider }, agents: [{ name: 'e', instructions: 'x', provider: { type: 'echo', apiKey: 'sk-1' } }] } }),
    ).toEqual([expect.stringContaining('/p/a.js: agent "e": agents[0].provider.apiKey is refused: never put an API key in the configuration')]);
  });

  describe('MCP servers', () => {
    const tickets = {
      name: 'tickets',
      transport: { type: 'http' as const, url: 'https://mcp.example.com/mcp', headers: { Authorization: { fromEnv: 'TICKETS_TOKEN', prefix: 'Bearer ' } } },
      tools: { find: { effect: ToolEffect.READ_ONLY }, close: { effect: ToolEffect.IDEMPOTENT_WRITE } },
    };
    const fs = { name: 'fs', transport: { type: 'stdio', command: './bin/fs-server' }, tools: { read_text_file: { effect: 'READ_ONLY' } } };
    const closer = { name: 'closer', instructions: 'Close.', tools: ['tickets.find', 'tickets.close', 'fs.read_text_file'], approvals: { preApproved: ['tickets.close'] }, provider: { type: 'scripted', script: [{ final: 'x' }] } };

    it("loads a plugin's bindings (source: the plugin, paths from its folder), their tools known to every plugin's agents", async () => {
      const loaded = await load({ '/p/a/tickets.js': definePlugin({ mcpServers: [tickets] }), '/p/b/fs.js': { mcpServers: [fs], agents: [closer] } });
      expect(loaded.plugins.map((plugin) => plugin.mcpServers.map((server) => [server.name, server.source, server.baseDir]))).toEqual([
        [['tickets', 'plugin /p/a/tickets.js', '/p/a']],
        [['fs', 'plugin /p/b/fs.js', '/p/b']],
      ]);
      expect(loaded.mcpServers.map((server) => server.name)).toEqual(['tickets', 'fs']);
      expect(loaded.mcpServers[1]?.transport).toEqual({ type: 'stdio', command: '/p/b/bin/fs-server', args: [], cwd: '/p/b', env: {} });
      expect(loaded.mcpServers[0]?.tools).toEqual([
        { tool: 'find', name: 'tickets.find', effect: 'READ_ONLY' },
        { tool: 'close', name: 'tickets.close', effect: 'IDEMPOTENT_WRITE' },
      ]);
      expect(loaded.agents[0]).toMatchObject({ name: 'closer', tools: ['tickets.find', 'tickets.close', 'fs.read_text_file'] });
    });

    it('refuses a binding as the agents file would, each problem with its field, and an effect anywhere but on a tool', async () => {
      const problems = await refusal({
        '/p/a.js': { mcpServers: [{ ...tickets, effect: 'READ_ONLY', transport: { type: 'http', url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer abc' } } }] },
      });
      expect(problems).toEqual([
        "/p/a.js: mcpServers[0].effect is refused here: an MCP tool's effect is declared per tool, at mcpServers[0].tools.<tool>.effect (READ_ONLY, IDEMPOTENT_WRITE, NON_IDEMPOTENT_WRITE)",
        '/p/a.js: mcpServers[0].transport.headers.Authorization looks like a secret (its name has "authorization") and must not be written in a file: use { fromEnv: NAME } (an environment variable of the service) or { fromFile: path }, each with an optional prefix',
      ]);
      expect(await refusal({ '/p/a.js': { mcpServers: tickets } })).toEqual(['/p/a.js: mcpServers must be a list, not a mapping']);
    });

    it('refuses a server bound by two plugins, and a bound tool named as a built-in or a plugin tool', async () => {
      const problems = await loadPlugins(['/p/a.js', '/p/b.js', '/p/c.js'], {
        reservedToolNames: ['clock.now', 'tickets.find'],
        load: async (file) =>
          ({
            '/p/a.js': { tools: [CommentTool], mcpServers: [tickets] },
            '/p/b.js': { mcpServers: [{ ...tickets, tools: { search: {} } }] },
            '/p/c.js': { mcpServers: [{ ...fs, name: 'notes' }] },
          })[file],
      }).catch((error: unknown) => (error as PluginError).problems.map((problem) => `${problem.file}: ${problem.message}`));
      expect(problems).toEqual([
        '/p/a.js: MCP tool "tickets.find" (server "tickets") collides with a built-in tool of the same name',
        '/p/b.js: MCP server "tickets" is also bound by plugin /p/a.js: server names must be unique',
      ]);
      const named = await refusal({ '/p/a.js': { tools: [CommentTool] }, '/p/b.js': { mcpServers: [{ ...tickets, tools: { comment: { effect: 'NON_IDEMPOTENT_WRITE' } } }] } });
      expect(named).toEqual(['/p/b.js: MCP tool "tickets.comment" (server "tickets") has the name of a tool of plugin /p/a.js: tool names must be unique']);
    });
  });

  it('reports every problem of every plugin at once', async () => {
    const problems = await refusal({ '/p/a.js': 42, '/p/b.js': { tools: [toolNamed('x.y')] }, '/p/c.js': { modelProviders: { scripted: echoProvider } } });
    expect(problems.map((line) => line.split(':')[0])).toEqual(['/p/a.js', '/p/b.js', '/p/c.js']);
  });
});

describe('loadPlugins on files', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'agent-ledger-plugins-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  async function fileRefusal(file: string): Promise<string[]> {
    const error = await loadPlugins([file]).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(PluginError);
    return (error as PluginError).problems.map((problem) => `${problem.file}: ${problem.message}`);
  }

  it('loads a CommonJS file in the function form', async () => {
    const file = join(dir, 'notes.js');
    writeFileSync(
      file,
      `class NotesRead { getEffect() { return 'READ_ONLY'; } async execute() { return 'note'; } }
module.exports = ({ Tool, definePlugin }) => {
  Tool({ name: 'notes.read', description: 'Reads a note.', parameters: { type: 'object' } })(NotesRead);
  return definePlugin({ tools: [NotesRead] });
};`,
    );
    expect((await loadPlugins([file])).plugins).toEqual([expect.objectContaining({ file, toolNames: ['notes.read'] })]);
  });

  it('refuses a file that cannot be found, that fails to load (the loader\'s error included) or that is not JavaScript, naming it', async () => {
    expect(await fileRefusal(join(dir, 'missing.js'))).toEqual([`${join(dir, 'missing.js')}: cannot be found (no such file)`]);
    writeFileSync(join(dir, 'broken.js'), 'module.exports = {;');
    expect(await fileRefusal(join(dir, 'broken.js'))).toEqual([expect.stringMatching(new RegExp(`^${join(dir, 'broken.js')}: failed to load: .*Unexpected token`))]);
    writeFileSync(join(dir, 'throws.cjs'), "throw new Error('DATABASE_URL is not set');");
    expect(await fileRefusal(join(dir, 'throws.cjs'))).toEqual([`${join(dir, 'throws.cjs')}: failed to load: DATABASE_URL is not set`]);
    writeFileSync(join(dir, 'tools.ts'), 'export default {};');
    expect(await fileRefusal(join(dir, 'tools.ts'))).toEqual([
      `${join(dir, 'tools.ts')}: must be a JavaScript module (.js, .cjs, .mjs), not .ts: build TypeScript first and name the built file`,
    ]);
  });
});

describe('mergePluginAgents', () => {
  it('puts the plugins\' agents after the agents file\'s, and refuses one whose name the agents file defines, naming both files', async () => {
    const loaded = await load({ '/p/a.js': { tools: [SearchTicketsTool, CommentTool], agents: [triager] } });
    const fileAgent = { name: 'clerk' } as AgentDefinition;
    expect(mergePluginAgents([fileAgent], '/cfg/agents.yaml', loaded).map((a) => a.name)).toEqual(['clerk', 'triager']);
    expect(() => mergePluginAgents([{ name: 'triager' } as AgentDefinition], '/cfg/agents.yaml', loaded)).toThrow(
      'plugin /p/a.js: agent "triager" is also defined in the agents file /cfg/agents.yaml: agent names must be unique',
    );
  });
});
