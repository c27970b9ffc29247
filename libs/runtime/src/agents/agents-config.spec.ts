import { ConfigurationError, MAX_ITERATIONS, classifyFailure } from '@agent-ledger/domain';
import { DEFAULT_AGENT_APPROVALS } from './agent-approvals';
import { approvalsOf } from './agent-definition';
import { parseAgentsConfig } from './agents-config';
import type { ConfigIssue } from './agents-config.error';
import { AgentsConfigError } from './agents-config.error';
import { EFFECT_KEY_MESSAGE } from './config-reader';
import { join } from 'node:path';

/** A valid document; each test breaks one thing in a copy. */
function validDocument(): { agents: Record<string, unknown>[] } {
  return {
    agents: [
      {
        name: 'file-clerk',
        description: 'Reads a file and writes a report.',
        instructions: 'You are a careful clerk.',
        tools: ['files.read', 'files.write'],
        maxIterations: 5,
        provider: {
          type: 'scripted',
          script: [
            { toolCalls: [{ tool: 'files.read', arguments: { path: 'in.txt' } }] },
            { toolCalls: [{ tool: 'files.write', arguments: { path: 'out.txt', content: 'done' } }] },
            { final: 'Report written.' },
          ],
        },
      },
      {
        name: 'local-llm',
        instructions: 'Answer briefly.',
        tools: ['clock.now'],
        provider: { type: 'openai', baseUrl: 'http://localhost:11434/v1', model: 'llama3.1', timeoutSeconds: 30, temperature: 0.2 },
      },
    ],
  };
}

function issuesOf(document: unknown, options?: { knownTools?: readonly string[] }): readonly ConfigIssue[] {
  try {
    parseAgentsConfig(JSON.stringify(document), 'agents.json', options);
  } catch (error) {
    expect(error).toBeInstanceOf(AgentsConfigError);
    return (error as AgentsConfigError).issues;
  }
  throw new Error('the document was accepted');
}

function expectIssue(document: unknown, path: string, message: string | RegExp): void {
  const issues = issuesOf(document);
  expect(issues).toContainEqual({ path, message: typeof message === 'string' ? message : expect.stringMatching(message) });
}

function agent(document: { agents: Record<string, unknown>[] }, index: number): Record<string, unknown> {
  const found = document.agents[index];
  if (found === undefined) throw new Error(`no agent ${index}`);
  return found;
}

function provider(document: { agents: Record<string, unknown>[] }, index: number): Record<string, unknown> {
  return agent(document, index)['provider'] as Record<string, unknown>;
}

describe('parseAgentsConfig', () => {
  describe('a valid document', () => {
    it('returns every agent with its provider, tools and limits', () => {
      const config = parseAgentsConfig(JSON.stringify(validDocument()), 'agents.json');
      expect(config.agents.map((a) => a.name)).toEqual(['file-clerk', 'local-llm']);
      expect(config.agents[0]).toEqual({
        name: 'file-clerk',
        description: 'Reads a file and writes a report.',
        instructions: 'You are a careful clerk.',
        tools: ['files.read', 'files.write'],
        maxIterations: 5,
        provider: {
          type: 'scripted',
          script: [
            { toolCalls: [{ tool: 'files.read', arguments: { path: 'in.txt' } }] },
            { toolCalls: [{ tool: 'files.write', arguments: { path: 'out.txt', content: 'done' } }] },
            { final: 'Report written.' },
          ],
        },
        approvals: { preApproved: [], onDenial: 'endRun' },
      });
      expect(config.agents[1]?.provider).toEqual({
        type: 'openai',
        baseUrl: 'http://localhost:11434/v1',
        model: 'llama3.1',
        timeoutSeconds: 30,
        temperature: 0.2,
      });
    });

    it('defaults maxIterations to MAX_ITERATIONS and tools to none', () => {
      const document = { agents: [{ name: 'a', instructions: 'x', provider: { type: 'scripted', script: [{ final: 'hi' }] } }] };
      const [only] = parseAgentsConfig(JSON.stringify(document), 'agents.json').agents;
      expect(only?.maxIterations).toBe(MAX_ITERATIONS);
      expect(only?.tools).toEqual([]);
    });

    it('returns deeply frozen definitions', () => {
      const config = parseAgentsConfig(JSON.stringify(validDocument()), 'agents.json');
      const clerk = config.agents[0];
      expect(Object.isFrozen(config)).toBe(true);
      expect(Object.isFrozen(config.agents)).toBe(true);
      expect(Object.isFrozen(clerk)).toBe(true);
      expect(Object.isFrozen(clerk?.tools)).toBe(true);
      expect(Object.isFrozen(clerk?.provider)).toBe(true);
      const script = clerk?.provider.type === 'scripted' ? clerk.provider.script : [];
      const firstRound = script[0];
      expect(Object.isFrozen(script)).toBe(true);
      expect(firstRound !== undefined && 'toolCalls' in firstRound && Object.isFrozen(firstRound.toolCalls[0]?.arguments)).toBe(true);
    });

    it('reads YAML', () => {
      const yaml = [
        'agents:',
        '  - name: time-teller',
        '    instructions: Tell the time.',
        '    tools: [clock.now]',
        '    provider:',
        '      type: scripted',
        '      script:',
        '        - toolCalls:',
        '            - tool: clock.now',
        '        - final: It is now.',
      ].join('\n');
      const config = parseAgentsConfig(yaml, 'agents.yaml');
      expect(config.agents[0]?.provider).toEqual({
        type: 'scripted',
        script: [{ toolCalls: [{ tool: 'clock.now', arguments: {} }] }, { final: 'It is now.' }],
      });
    });
  });

  describe('the error', () => {
    it('is a ConfigurationError (class configuration) naming the source and listing every issue with its path', () => {
      const document = validDocument();
      agent(document, 0)['name'] = 'File Clerk';
      provider(document, 1)['baseUrl'] = 'ftp://example.com';
      let thrown: unknown;
      try {
        parseAgentsConfig(JSON.stringify(document), 'config/agents.yaml');
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(ConfigurationError);
      expect(classifyFailure(thrown)).toBe('configuration');
      const error = thrown as AgentsConfigError;
      expect(error.source).toBe('config/agents.yaml');
      expect(error.issues.map((issue) => issue.path)).toEqual(['agents[0].name', 'agents[1].provider.baseUrl']);
      expect(error.message).toContain('config/agents.yaml');
      expect(error.message).toContain('agents[1].provider.baseUrl must be an http(s) URL, not "ftp://example.com"');
    });

    it('reports invalid YAML with its line', () => {
      expect(() => parseAgentsConfig('agents:\n  - name: [unclosed\n', 'bad.yaml')).toThrow(/not valid YAML or JSON.*line/s);
    });

    it('refuses duplicate keys', () => {
      const issues = (() => {
        try {
          parseAgentsConfig('agents:\n  - name: a\n    name: b\n', 'dup.yaml');
        } catch (error) {
          return (error as AgentsConfigError).issues;
        }
        return [];
      })();
      expect(issues[0]?.message).toMatch(/unique/i);
    });

    it('refuses an empty document and one without agents', () => {
      expect(() => parseAgentsConfig('', 'empty.yaml')).toThrow(/is empty: expected a mapping with an agents list/);
      expectIssue({}, 'agents', 'is required');
      expectIssue({ agents: [] }, 'agents', 'must not be empty');
      expectIssue({ agents: { name: 'a' } }, 'agents', 'must be a list, not a mapping');
      expectIssue([], '', /must be the agents document \(a mapping\), not a list/);
    });

    it('refuses an alias bomb', () => {
      const lines = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
      for (let i = 1; i < 12; i++) lines.push(`${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(10).fill(`*${String.fromCharCode(96 + i)}`).join(', ')}]`);
      expect(() => parseAgentsConfig(lines.join('\n'), 'bomb.yaml')).toThrow(AgentsConfigError);
    });
  });

  describe('agents', () => {
    it.each([
      ['File-Clerk', /must be lower-case letters, digits and "-"/],
      ['-clerk', /must be lower-case letters/],
      ['a'.repeat(64), /at most 63 characters/],
      ['clerk_1', /must be lower-case letters/],
    ])('refuses the name %j', (name, message) => {
      const document = validDocument();
      agent(document, 1)['name'] = name;
      expectIssue(document, 'agents[1].name', message);
    });

    it('accepts a 63-character name', () => {
      const document = validDocument();
      agent(document, 1)['name'] = 'a'.repeat(63);
      expect(() => parseAgentsConfig(JSON.stringify(document), 'agents.json')).not.toThrow();
    });

    it('requires a name', () => {
      const document = validDocument();
      delete agent(document, 0)['name'];
      expectIssue(document, 'agents[0].name', 'is required');
    });

    it('refuses a second agent with the same name, naming the first', () => {
      const document = validDocument();
      agent(document, 1)['name'] = 'file-clerk';
      expectIssue(document, 'agents[1].name', '"file-clerk" is already the name of agents[0]');
    });

    it.each([
      [undefined, 'is required'],
      ['', 'must not be empty'],
      ['   \n', 'must not be empty'],
      [42, 'must be a string, not number 42'],
    ])('refuses instructions %j', (instructions, message) => {
      const document = validDocument();
      agent(document, 0)['instructions'] = instructions;
      expectIssue(document, 'agents[0].instructions', message);
    });

    it('refuses a description that is not a string', () => {
      const document = validDocument();
      agent(document, 0)['description'] = ['a'];
      expectIssue(document, 'agents[0].description', 'must be a string, not a list');
    });

    it.each([0, 21, 2.5, '5', -1])('refuses maxIterations %j', (maxIterations) => {
      const document = validDocument();
      agent(document, 0)['maxIterations'] = maxIterations;
      expectIssue(document, 'agents[0].maxIterations', /^must be an integer from 1 to 20, not /);
    });

    it.each([1, 20])('accepts maxIterations %j', (maxIterations) => {
      const document = validDocument();
      agent(document, 0)['maxIterations'] = maxIterations;
      expect(parseAgentsConfig(JSON.stringify(document), 'agents.json').agents[0]?.maxIterations).toBe(maxIterations);
    });
  });

  describe('tools', () => {
    it('refuses a list that is not a list', () => {
      const document = validDocument();
      agent(document, 1)['tools'] = 'clock.now';
      expectIssue(document, 'agents[1].tools', 'must be a list, not the string "clock.now"');
    });

    it('refuses a tool listed twice, naming the first', () => {
      const document = validDocument();
      agent(document, 1)['tools'] = ['clock.now', 'files.read', 'clock.now'];
      expectIssue(document, 'agents[1].tools[2]', '"clock.now" is listed twice (first at agents[1].tools[0])');
    });

    it.each([['files read'], [''], [7], ['x'.repeat(65)]])('refuses the tool name %j', (tool) => {
      const document = validDocument();
      agent(document, 1)['tools'] = [tool];
      expectIssue(document, 'agents[1].tools[0]', /must be (a tool name|a string)|is required/);
    });

    it('refuses a tool the registry does not know, when it is given', () => {
      const document = validDocument();
      const issues = issuesOf(document, { knownTools: ['files.read', 'files.write'] });
      expect(issues).toEqual([{ path: 'agents[1].tools[0]', message: '"clock.now" is not a known tool (known: files.read, files.write)' }]);
    });
  });

  describe('mcpServers', () => {
    const FS = {
      name: 'fs',
      transport: { type: 'stdio', command: './bin/fs-server', args: ['--root', 'data'] },
      tools: { read_text_file: { effect: 'READ_ONLY' }, write_file: { effect: 'IDEMPOTENT_WRITE' }, list_directory: {} },
    };
    const KNOWN = ['files.read', 'files.write', 'clock.now'];

    function withServers(servers: unknown, tools: string[] = ['fs.read_text_file', 'fs.write_file'], preApproved: string[] = ['fs.write_file']): Record<string, unknown> {
      const document: Record<string, unknown> = validDocument();
      document['mcpServers'] = servers;
      const agents = document['agents'] as Record<string, unknown>[];
      agents.push({ name: 'fs-clerk', instructions: 'File things.', tools, approvals: { preApproved }, provider: { type: 'scripted', script: [{ final: 'ok' }] } });
      return document;
    }

    it('defaults to none', () => {
      expect(parseAgentsConfig(JSON.stringify(validDocument()), 'agents.json').mcpServers).toEqual([]);
    });

    it('returns the bindings, their source the document, their relative paths from options.baseDir, their tools known to its agents and pre-approvable', () => {
      const config = parseAgentsConfig(JSON.stringify(withServers([FS])), '/srv/app/agents.json', { knownTools: KNOWN, baseDir: '/srv/app' });
      expect(config.mcpServers).toEqual([
        {
          name: 'fs',
          transport: { type: 'stdio', command: '/srv/app/bin/fs-server', args: ['--root', 'data'], cwd: '/srv/app', env: {} },
          trustHints: false,
          startTimeoutSeconds: 30,
          maxInlineBytes: 65_536,
          maxResultBytes: 262_144,
          restart: { initialDelayMs: 1_000, maxDelayMs: 30_000 },
          tools: [
            { tool: 'read_text_file', name: 'fs.read_text_file', effect: 'READ_ONLY' },
            { tool: 'write_file', name: 'fs.write_file', effect: 'IDEMPOTENT_WRITE' },
            { tool: 'list_directory', name: 'fs.list_directory' },
          ],
          source: '/srv/app/agents.json',
          baseDir: '/srv/app',
        },
      ]);
      expect(config.agents[2]).toMatchObject({ name: 'fs-clerk', tools: ['fs.read_text_file', 'fs.write_file'], approvals: { preApproved: ['fs.write_file'] } });
      expect(Object.isFrozen(config.mcpServers)).toBe(true);
    });

    it('resolves relative paths from the current folder without options.baseDir', () => {
      const [server] = parseAgentsConfig(JSON.stringify(withServers([FS])), 'agents.json').mcpServers;
      expect(server?.baseDir).toBe(process.cwd());
      expect(server?.transport).toMatchObject({ command: join(process.cwd(), 'bin/fs-server'), cwd: process.cwd() });
    });

    it('refuses a tool that neither the registry nor a binding gives, listing the bound ones as known', () => {
      const issues = issuesOf(withServers([FS], ['fs.read_text_file', 'fs.delete_file'], []), { knownTools: KNOWN });
      expect(issues).toEqual([
        {
          path: 'agents[2].tools[1]',
          message: '"fs.delete_file" is not a known tool (known: files.read, files.write, clock.now, fs.read_text_file, fs.write_file, fs.list_directory)',
        },
      ]);
    });

    it('reports the problems of the bindings with the agents\', and does not also refuse an agent for a tool of a binding with a problem', () => {
      const broken = { ...FS, transport: { type: 'stdio' }, tools: { ...FS.tools, read_text_file: { effect: 'READONLY' } } };
      const issues = issuesOf({ ...withServers([broken]), version: 1 }, { knownTools: KNOWN });
      expect(issues).toEqual([
        { path: 'version', message: 'is not a known key of the agents document; known keys: agents, mcpServers' },
        { path: 'mcpServers[0].transport.command', message: 'is required' },
        { path: 'mcpServers[0].tools.read_text_file.effect', message: 'must be one of READ_ONLY, IDEMPOTENT_WRITE, NON_IDEMPOTENT_WRITE, not the string "READONLY"' },
      ]);
    });

    it('accepts effect only on a bound tool: on the list, a server or an agent it is refused, saying where it can be declared', () => {
      const document = withServers([{ ...FS, effect: 'READ_ONLY' }]);
      agent(document as { agents: Record<string, unknown>[] }, 2)['effect'] = 'READ_ONLY';
      const issues = issuesOf({ ...document, effects: {} }, { knownTools: KNOWN });
      expect(issues).toEqual([
        { path: 'effects', message: EFFECT_KEY_MESSAGE },
        {
          path: 'mcpServers[0].effect',
          message: "is refused here: an MCP tool's effect is declared per tool, at mcpServers[0].tools.<tool>.effect (READ_ONLY, IDEMPOTENT_WRITE, NON_IDEMPOTENT_WRITE)",
        },
        { path: 'agents[2].effect', message: EFFECT_KEY_MESSAGE },
      ]);
      expect(EFFECT_KEY_MESSAGE).toBe(
        "is refused: tool effects are declared in code and cannot be configured (a tool declares its effect by implementing DeclaresToolEffect); only an MCP server's tool declares its effect in its binding, at mcpServers[].tools.<tool>.effect",
      );
    });

    it('reads a YAML binding whose tool has no settings', () => {
      const yaml = [
        'mcpServers:',
        '  - name: fs',
        '    transport: { type: stdio, command: node }',
        '    tools:',
        '      list_directory:',
        'agents:',
        '  - name: lister',
        '    instructions: List.',
        '    tools: [fs.list_directory]',
        '    provider: { type: scripted, script: [{ final: done }] }',
      ].join('\n');
      const config = parseAgentsConfig(yaml, 'agents.yaml', { knownTools: [] });
      expect(config.mcpServers[0]?.tools).toEqual([{ tool: 'list_directory', name: 'fs.list_directory' }]);
      expect(config.agents[0]?.tools).toEqual(['fs.list_directory']);
    });
  });

  describe('approvals', () => {
    it('defaults to no pre-approved tool and endRun, on every loaded definition', () => {
      const config = parseAgentsConfig(JSON.stringify(validDocument()), 'agents.json');
      for (const loaded of config.agents) {
        expect(loaded.approvals).toEqual({ preApproved: [], onDenial: 'endRun' });
        expect(loaded.approvals).toEqual(DEFAULT_AGENT_APPROVALS);
        expect(approvalsOf(loaded)).toBe(loaded.approvals);
      }
    });

    it('reads preApproved and onDenial, frozen', () => {
      const document = validDocument();
      agent(document, 0)['approvals'] = { preApproved: ['files.write'], onDenial: 'tellModel' };
      const [clerk] = parseAgentsConfig(JSON.stringify(document), 'agents.json').agents;
      expect(clerk?.approvals).toEqual({ preApproved: ['files.write'], onDenial: 'tellModel' });
      expect(Object.isFrozen(clerk?.approvals)).toBe(true);
      expect(Object.isFrozen(clerk?.approvals?.preApproved)).toBe(true);
    });

    it('applies the default of each key left out', () => {
      const document = validDocument();
      agent(document, 0)['approvals'] = { onDenial: 'tellModel' };
      agent(document, 1)['approvals'] = { preApproved: ['clock.now'] };
      const [clerk, llm] = parseAgentsConfig(JSON.stringify(document), 'agents.json').agents;
      expect(clerk?.approvals).toEqual({ preApproved: [], onDenial: 'tellModel' });
      expect(llm?.approvals).toEqual({ preApproved: ['clock.now'], onDenial: 'endRun' });
    });

    it('reads YAML flow and block forms alike', () => {
      const yaml = [
        'agents:',
        '  - name: clerk',
        '    instructions: Write.',
        '    tools: [files.write, files.append]',
        '    approvals:',
        '      preApproved:',
        '        - files.write',
        '      onDenial: tellModel',
        '    provider: { type: scripted, script: [{ final: done }] }',
      ].join('\n');
      expect(parseAgentsConfig(yaml, 'agents.yaml').agents[0]?.approvals).toEqual({ preApproved: ['files.write'], onDenial: 'tellModel' });
    });

    it("refuses a pre-approved tool that is not one of the agent's tools, naming the entry", () => {
      const document = validDocument();
      agent(document, 0)['approvals'] = { preApproved: ['files.write', 'files.append'] };
      expect(issuesOf(document)).toEqual([
        {
          path: 'agents[0].approvals.preApproved[1]',
          message: `must be one of the agent's tools (files.read, files.write), not "files.append"`,
        },
      ]);
    });

    it('refuses a pre-approved tool for an agent without tools', () => {
      const document = validDocument();
      delete agent(document, 1)['tools'];
      agent(document, 1)['approvals'] = { preApproved: ['clock.now'] };
      expectIssue(document, 'agents[1].approvals.preApproved[0]', `must be one of the agent's tools (none), not "clock.now"`);
    });

    it('refuses a pre-approved tool listed twice, naming the first', () => {
      const document = validDocument();
      agent(document, 0)['approvals'] = { preApproved: ['files.write', 'files.read', 'files.write'] };
      expect(issuesOf(document)).toEqual([
        { path: 'agents[0].approvals.preApproved[2]', message: '"files.write" is listed twice (first at agents[0].approvals.preApproved[0])' },
      ]);
    });

    it.each([
      [42, 'must be a string, not number 42'],
      [null, 'must be a string, not null'],
      [{ tool: 'files.write' }, 'must be a string, not a mapping'],
    ])('refuses the pre-approved entry %j', (entry, message) => {
      const document = validDocument();
      agent(document, 0)['approvals'] = { preApproved: ['files.write', entry] };
      expectIssue(document, 'agents[0].approvals.preApproved[1]', message);
    });

    it('refuses preApproved that is not a list', () => {
      const document = validDocument();
      agent(document, 0)['approvals'] = { preApproved: 'files.write' };
      expectIssue(document, 'agents[0].approvals.preApproved', 'must be a list, not the string "files.write"');
    });

    it.each(['tellmodel', 'ignore', '', 1, true, null])('refuses onDenial %j', (onDenial) => {
      const document = validDocument();
      agent(document, 0)['approvals'] = { onDenial };
      expectIssue(document, 'agents[0].approvals.onDenial', /^must be "tellModel" or "endRun" \(tellModel shows the model .*\), not /);
    });

    it('refuses approvals that are not a mapping', () => {
      const document = validDocument();
      agent(document, 0)['approvals'] = ['files.write'];
      expectIssue(document, 'agents[0].approvals', 'must be the approvals of an agent (a mapping), not a list');
    });

    it('refuses an unknown key, suggesting the right one, and an effect key', () => {
      const document = validDocument();
      agent(document, 0)['approvals'] = { preAproved: ['files.write'], effect: 'READ_ONLY', requiresApproval: false };
      const issues = issuesOf(document);
      expect(issues).toContainEqual({
        path: 'agents[0].approvals.preAproved',
        message: expect.stringMatching(/is not a known key of the approvals of an agent \(did you mean preApproved\?\); known keys: preApproved, onDenial/),
      });
      expect(issues).toContainEqual({ path: 'agents[0].approvals.effect', message: EFFECT_KEY_MESSAGE });
      expect(issues).toContainEqual({ path: 'agents[0].approvals.requiresApproval', message: expect.stringMatching(/is not a known key/) });
      expect(issues).toHaveLength(3);
    });

    it('reports every problem of the block at once', () => {
      const document = validDocument();
      agent(document, 0)['approvals'] = { preApproved: ['web.fetch'], onDenial: 'retry' };
      expect(issuesOf(document).map((issue) => issue.path)).toEqual(['agents[0].approvals.preApproved[0]', 'agents[0].approvals.onDenial']);
    });
  });

  describe('approvalsOf', () => {
    it('gives the default to a definition built in code without approvals', () => {
      const definition = {
        name: 'coded',
        instructions: 'x',
        tools: ['files.write'],
        maxIterations: 3,
        provider: { type: 'scripted' as const, script: [{ final: 'done' }] },
      };
      expect(approvalsOf(definition)).toBe(DEFAULT_AGENT_APPROVALS);
      expect(DEFAULT_AGENT_APPROVALS).toEqual({ preApproved: [], onDenial: 'endRun' });
      expect(Object.isFrozen(DEFAULT_AGENT_APPROVALS)).toBe(true);
      expect(Object.isFrozen(DEFAULT_AGENT_APPROVALS.preApproved)).toBe(true);
    });

    it("gives a definition's own approvals", () => {
      const approvals = { preApproved: ['files.write'], onDenial: 'tellModel' as const };
      const definition = {
        name: 'coded',
        instructions: 'x',
        tools: ['files.write'],
        maxIterations: 3,
        provider: { type: 'scripted' as const, script: [{ final: 'done' }] },
        approvals,
      };
      expect(approvalsOf(definition)).toBe(approvals);
    });
  });

  describe('unknown keys', () => {
    it('refuses an unknown key at the root', () => {
      expectIssue({ ...validDocument(), version: 2 }, 'version', /is not a known key of the agents document; known keys: agents/);
    });

    it('refuses a misspelt agent key and suggests the right one', () => {
      const document = validDocument();
      agent(document, 0)['tols'] = ['files.read'];
      expectIssue(document, 'agents[0].tols', /is not a known key of an agent \(did you mean tools\?\)/);
    });

    it('refuses an unknown provider key, and a key of the other provider type', () => {
      const document = validDocument();
      provider(document, 0)['baseUrl'] = 'http://localhost';
      provider(document, 1)['maxTokens'] = 100;
      const issues = issuesOf(document);
      expect(issues).toContainEqual({ path: 'agents[0].provider.baseUrl', message: expect.stringMatching(/not a known key of a scripted provider/) });
      expect(issues).toContainEqual({ path: 'agents[1].provider.maxTokens', message: expect.stringMatching(/not a known key of an openai provider/) });
    });

    it('refuses unknown keys in a round and in a scripted call, but not inside arguments', () => {
      const document = validDocument();
      const script = provider(document, 0)['script'] as Record<string, unknown>[];
      script[0] = { toolCalls: [{ tool: 'files.read', arguments: { path: 'in.txt', anything: { nested: true } }, note: 'x' }] };
      script[2] = { final: 'done', pause: 1 };
      expect(issuesOf(document).map((issue) => issue.path)).toEqual([
        'agents[0].provider.script[0].toolCalls[0].note',
        'agents[0].provider.script[2].pause',
      ]);
    });
  });

  describe('scripted placeholders and alternative finals', () => {
    function script(document: { agents: Record<string, unknown>[] }): Record<string, unknown>[] {
      return provider(document, 0)['script'] as Record<string, unknown>[];
    }

    it('accepts placeholders that refer to earlier calls, in a final, its alternatives and string arguments at any depth', () => {
      const document = validDocument();
      script(document)[1] = { toolCalls: [{ tool: 'files.write', arguments: { path: 'out.txt', content: 'Read: {{result:files.read/content}}', meta: { tags: ['{{outcome:0.0}}'] } } }] };
      script(document)[2] = { final: 'Wrote {{result:1.0/bytes}} bytes.', finalIfDenied: 'Denied: {{error:files.write}}', finalIfFailed: '{{outcome:files.write}}' };
      const [clerk] = parseAgentsConfig(JSON.stringify(document), 'agents.json').agents;
      const rounds = clerk?.provider.type === 'scripted' ? clerk.provider.script : [];
      expect(rounds[2]).toEqual({ final: 'Wrote {{result:1.0/bytes}} bytes.', finalIfDenied: 'Denied: {{error:files.write}}', finalIfFailed: '{{outcome:files.write}}' });
    });

    it.each([
      ['an unknown kind', '{{answer:files.read}}', /has the unknown placeholder "\{\{answer:files.read\}\}": a placeholder is \{\{result:CALL\}\}/],
      ['no kind at all', 'The {{files.read}}', /has the unknown placeholder "\{\{files.read\}\}"/],
      ['an unclosed placeholder', 'The {{result:files.read', /has "\{\{" without a closing "\}\}"/],
      ['a call that is neither a tool nor ROUND.INDEX', '{{result:-x}}', /whose call "-x" is neither a tool name nor ROUND.INDEX/],
      ['a path on an outcome', '{{outcome:files.read/content}}', /only \{\{result:...\}\} takes a path/],
      ['an empty path key', '{{result:files.read//content}}', /whose path has an empty key/],
      ['a tool no earlier round calls', '{{result:clock.now}}', /has "\{\{result:clock.now\}\}", but no earlier round calls clock.now/],
      ['a round that is not earlier', '{{result:2.0}}', /refers to round 2: only an earlier round's calls have results/],
      ['a call the round does not have', '{{result:0.1}}', /but round 0 of the script has no call 1/],
    ])('refuses %s in a final, naming the round and the placeholder', (_what, text, message) => {
      const document = validDocument();
      script(document)[2] = { final: text };
      expectIssue(document, 'agents[0].provider.script[2].final', message);
    });

    it('names the agent and the round in the message', () => {
      const document = validDocument();
      script(document)[2] = { final: 'It is {{result:clock.now}}' };
      expectIssue(document, 'agents[0].provider.script[2].final', 'has "{{result:clock.now}}", but no earlier round calls clock.now (agent file-clerk, round 2)');
    });

    it('refuses a bad placeholder in an argument and in an alternative final, at its path', () => {
      const document = validDocument();
      script(document)[0] = { toolCalls: [{ tool: 'files.read', arguments: { path: '{{result:files.write}}' } }] };
      script(document)[2] = { final: 'ok', finalIfDenied: '{{reason:1.0}}' };
      expect(issuesOf(document).map((issue) => issue.path)).toEqual(['agents[0].provider.script[0].toolCalls[0].arguments.path', 'agents[0].provider.script[2].finalIfDenied']);
    });

    it('refuses an alternative final on a round of tool calls, and a blank one', () => {
      const document = validDocument();
      script(document)[1] = { toolCalls: [{ tool: 'files.write', arguments: { path: 'a', content: 'b' } }], finalIfDenied: 'no' };
      script(document)[2] = { final: 'ok', finalIfFailed: ' ' };
      const issues = issuesOf(document);
      expect(issues).toContainEqual({ path: 'agents[0].provider.script[1].finalIfDenied', message: 'is an alternative final answer: it belongs in a round with final, not toolCalls' });
      expect(issues).toContainEqual({ path: 'agents[0].provider.script[2].finalIfFailed', message: 'must not be empty' });
    });
  });

  describe('effect keys', () => {
    it.each(['effect', 'effects', 'toolEffects'])('refuses %s on an agent, saying effects are declared in code', (key) => {
      const document = validDocument();
      agent(document, 0)[key] = { 'files.write': 'READ_ONLY' };
      expectIssue(document, `agents[0].${key}`, EFFECT_KEY_MESSAGE);
      expect(EFFECT_KEY_MESSAGE).toMatch(/tool effects are declared in code and cannot be configured/);
    });

    it('refuses an effect key at the root, on a provider, a round and a scripted call', () => {
      const document = { ...validDocument(), toolEffects: {} };
      provider(document, 1)['effects'] = {};
      const script = provider(document, 0)['script'] as Record<string, unknown>[];
      script[0] = { toolCalls: [{ tool: 'files.read', effect: 'READ_ONLY' }] };
      script[2] = { final: 'x', effect: 'READ_ONLY' };
      const paths = issuesOf(document)
        .filter((issue) => issue.message === EFFECT_KEY_MESSAGE)
        .map((issue) => issue.path);
      expect(paths.sort()).toEqual(
        ['toolEffects', 'agents[1].provider.effects', 'agents[0].provider.script[0].toolCalls[0].effect', 'agents[0].provider.script[2].effect'].sort(),
      );
    });

    it('refuses a tool entry that tries to set an effect', () => {
      const document = validDocument();
      agent(document, 1)['tools'] = [{ name: 'clock.now', effect: 'READ_ONLY' }];
      const issues = issuesOf(document);
      expect(issues).toContainEqual({ path: 'agents[1].tools[0].effect', message: EFFECT_KEY_MESSAGE });
      expect(issues).toContainEqual({ path: 'agents[1].tools[0]', message: expect.stringMatching(/must be a tool name \(a string\)/) });
    });
  });

  describe('provider', () => {
    it('requires a provider', () => {
      const document = validDocument();
      delete agent(document, 0)['provider'];
      expectIssue(document, 'agents[0].provider', /^is required/);
    });

    it('requires a known type', () => {
      const document = validDocument();
      provider(document, 0)['type'] = 'gemini';
      expectIssue(document, 'agents[0].provider.type', 'must be one of scripted, openai, anthropic, not "gemini"');
      delete provider(document, 1)['type'];
      expectIssue(document, 'agents[1].provider.type', 'is required (one of scripted, openai, anthropic)');
    });
  });

  describe('scripted provider', () => {
    it.each([
      [undefined, 'is required'],
      [[], 'must not be empty'],
      [{ final: 'x' }, 'must be a list, not a mapping'],
    ])('refuses the script %j', (script, message) => {
      const document = validDocument();
      provider(document, 0)['script'] = script;
      expectIssue(document, 'agents[0].provider.script', message);
    });

    it('refuses a round with both toolCalls and final, and one with neither', () => {
      const document = validDocument();
      provider(document, 0)['script'] = [{ toolCalls: [{ tool: 'files.read' }], final: 'x' }, {}];
      const issues = issuesOf(document);
      expect(issues).toContainEqual({ path: 'agents[0].provider.script[0]', message: 'must have exactly one of toolCalls or final, not both' });
      expect(issues).toContainEqual({ path: 'agents[0].provider.script[1]', message: 'must have exactly one of toolCalls or final, not neither' });
    });

    it('refuses a round after a final answer', () => {
      const document = validDocument();
      provider(document, 0)['script'] = [{ final: 'done' }, { final: 'again' }];
      expectIssue(document, 'agents[0].provider.script[1]', /can never be reached: round 0 before it is a final answer/);
    });

    it('refuses an empty final answer and an empty list of calls', () => {
      const document = validDocument();
      provider(document, 0)['script'] = [{ toolCalls: [] }, { final: '' }];
      const issues = issuesOf(document);
      expect(issues).toContainEqual({ path: 'agents[0].provider.script[0].toolCalls', message: 'must not be empty' });
      expect(issues).toContainEqual({ path: 'agents[0].provider.script[1].final', message: 'must not be empty' });
    });

    it("refuses a scripted call of a tool that is not among the agent's tools", () => {
      const document = validDocument();
      provider(document, 0)['script'] = [{ toolCalls: [{ tool: 'files.append', arguments: { path: 'log' } }] }];
      expectIssue(
        document,
        'agents[0].provider.script[0].toolCalls[0].tool',
        `names "files.append", which is not among the agent's tools (files.read, files.write)`,
      );
    });

    it('refuses a scripted call without a tool, and arguments that are not an object', () => {
      const document = validDocument();
      provider(document, 0)['script'] = [{ toolCalls: [{ arguments: {} }, { tool: 'files.read', arguments: ['in.txt'] }] }];
      const issues = issuesOf(document);
      expect(issues).toContainEqual({ path: 'agents[0].provider.script[0].toolCalls[0].tool', message: 'is required' });
      expect(issues).toContainEqual({ path: 'agents[0].provider.script[0].toolCalls[1].arguments', message: 'must be an object (a mapping), not a list' });
    });

    it('refuses arguments that are not JSON data (a YAML binary)', () => {
      const yaml = [
        'agents:',
        '  - name: a',
        '    instructions: x',
        '    tools: [files.write]',
        '    provider:',
        '      type: scripted',
        '      script:',
        '        - toolCalls:',
        '            - tool: files.write',
        '              arguments: { path: p, content: !!binary aGVsbG8= }',
      ].join('\n');
      try {
        parseAgentsConfig(yaml, 'agents.yaml');
        throw new Error('accepted');
      } catch (error) {
        expect((error as AgentsConfigError).issues).toEqual([
          { path: 'agents[0].provider.script[0].toolCalls[0].arguments.content', message: expect.stringMatching(/must be JSON data/) },
        ]);
      }
    });
  });

  describe('openai provider', () => {
    it.each([
      ['ftp://example.com/v1', /must be an http\(s\) URL/],
      ['localhost:11434', /must be an http\(s\) URL/],
      ['not a url', /must be an http\(s\) URL/],
      ['http://localhost:11434/v1?x=1', /must not have a query or a fragment/],
      ['http://user:secret@localhost/v1', /must not carry credentials/],
      ['', /must not be empty/],
    ])('refuses the baseUrl %j', (baseUrl, message) => {
      const document = validDocument();
      provider(document, 1)['baseUrl'] = baseUrl;
      expectIssue(document, 'agents[1].provider.baseUrl', message);
    });

    it('requires a model', () => {
      const document = validDocument();
      delete provider(document, 1)['model'];
      expectIssue(document, 'agents[1].provider.model', 'is required');
    });

    it('refuses an apiKeyEnv that looks like a key, and an apiKey', () => {
      const document = validDocument();
      provider(document, 1)['apiKeyEnv'] = 'sk-abc123';
      provider(document, 1)['apiKey'] = 'sk-abc123';
      const issues = issuesOf(document);
      expect(issues).toContainEqual({ path: 'agents[1].provider.apiKeyEnv', message: expect.stringMatching(/name of an environment variable.*never the key itself/) });
      expect(issues).toContainEqual({ path: 'agents[1].provider.apiKey', message: expect.stringMatching(/never put an API key in the configuration/) });
      expect(JSON.stringify(issues)).not.toContain('sk-abc123'); // a pasted key is never echoed into a log
    });

    it.each([0, -1, 601, '30'])('refuses timeoutSeconds %j', (timeoutSeconds) => {
      const document = validDocument();
      provider(document, 1)['timeoutSeconds'] = timeoutSeconds;
      expectIssue(document, 'agents[1].provider.timeoutSeconds', /^must be a number greater than 0 and at most 600/);
    });

    it.each([-0.1, 2.1, null])('refuses temperature %j', (temperature) => {
      const document = validDocument();
      provider(document, 1)['temperature'] = temperature;
      expectIssue(document, 'agents[1].provider.temperature', /^must be a number from 0 to 2/);
    });
  });

  describe('where an API key comes from (openai and anthropic)', () => {
    it('accepts apiKeyFile (an absolute path) and baseUrlEnv, and keeps them', () => {
      const document = validDocument();
      Object.assign(provider(document, 1), { apiKeyFile: '/run/secrets/openai_key', baseUrlEnv: 'OPENAI_BASE_URL' });
      const config = parseAgentsConfig(JSON.stringify(document), 'agents.json');
      expect(config.agents[1]?.provider).toMatchObject({ apiKeyFile: '/run/secrets/openai_key', baseUrlEnv: 'OPENAI_BASE_URL' });
    });

    it('refuses an apiKeyFile that is not an absolute path without echoing it (it may be a pasted key)', () => {
      const document = validDocument();
      provider(document, 1)['apiKeyFile'] = 'sk-proj-abc123';
      const issues = issuesOf(document);
      expect(issues).toContainEqual({ path: 'agents[1].provider.apiKeyFile', message: expect.stringMatching(/must be the absolute path of a file that holds the key.*never the key itself/) });
      expect(JSON.stringify(issues)).not.toContain('sk-proj-abc123');
    });

    it('refuses apiKeyEnv and apiKeyFile together', () => {
      const document = validDocument();
      Object.assign(provider(document, 1), { apiKeyEnv: 'OPENAI_API_KEY', apiKeyFile: '/run/secrets/openai_key' });
      expectIssue(document, 'agents[1].provider.apiKeyFile', 'cannot be given with apiKeyEnv: name one place the key comes from');
    });

    it.each(['apiKey', 'api_key', 'key'])('refuses a literal key in %s, naming apiKeyEnv and apiKeyFile, without echoing it', (field) => {
      const document = validDocument();
      provider(document, 1)[field] = 'sk-live-secret-value';
      const issues = issuesOf(document);
      expect(issues).toContainEqual({
        path: `agents[1].provider.${field}`,
        message: 'is refused: never put an API key in the configuration; name the environment variable that holds it in apiKeyEnv, or the file that holds it in apiKeyFile',
      });
      expect(JSON.stringify(issues)).not.toContain('sk-live-secret-value');
    });

    it('refuses a baseUrlEnv that is not a variable name', () => {
      const document = validDocument();
      provider(document, 1)['baseUrlEnv'] = 'http://localhost:1234/v1';
      expectIssue(document, 'agents[1].provider.baseUrlEnv', /^must be the name of an environment variable/);
    });
  });

  describe('anthropic provider', () => {
    function anthropicDocument(settings: Record<string, unknown>): { agents: Record<string, unknown>[] } {
      return { agents: [{ name: 'claude', instructions: 'Answer briefly.', tools: ['clock.now'], provider: { type: 'anthropic', model: 'claude-sonnet-4-5', ...settings } }] };
    }

    it('accepts the type with a model alone (the defaults are the provider\'s), and every setting', () => {
      expect(parseAgentsConfig(JSON.stringify(anthropicDocument({})), 'agents.json').agents[0]?.provider).toEqual({ type: 'anthropic', model: 'claude-sonnet-4-5' });
      const all = {
        baseUrl: 'https://anthropic.example/',
        baseUrlEnv: 'ANTHROPIC_BASE_URL',
        apiKeyEnv: 'MY_ANTHROPIC_KEY',
        maxTokens: 2048,
        timeoutSeconds: 90,
        temperature: 1,
      };
      expect(parseAgentsConfig(JSON.stringify(anthropicDocument(all)), 'agents.json').agents[0]?.provider).toEqual({ type: 'anthropic', model: 'claude-sonnet-4-5', ...all });
    });

    it.each([
      [{ model: '' }, 'agents[0].provider.model', 'must not be empty'],
      [{ maxTokens: 0 }, 'agents[0].provider.maxTokens', /^must be an integer from 1 to 128000/],
      [{ maxTokens: 10.5 }, 'agents[0].provider.maxTokens', /^must be an integer from 1 to 128000/],
      [{ temperature: 1.5 }, 'agents[0].provider.temperature', /^must be a number from 0 to 1, not number 1.5/],
      [{ timeoutSeconds: 601 }, 'agents[0].provider.timeoutSeconds', /^must be a number greater than 0 and at most 600/],
      [{ baseUrl: 'https://api.anthropic.com?x=1' }, 'agents[0].provider.baseUrl', /must not have a query or a fragment \(\/v1\/messages is appended to it\)/],
      [{ apiKeyEnv: 'sk-ant-api03-xyz' }, 'agents[0].provider.apiKeyEnv', /never the key itself/],
      [{ apiKey: 'sk-ant-api03-xyz' }, 'agents[0].provider.apiKey', /never put an API key in the configuration/],
      [{ script: [] }, 'agents[0].provider.script', /is not a known key of an anthropic provider/],
    ])('refuses %j, naming %s', (settings, path, message) => {
      expectIssue(anthropicDocument(settings), path, message);
      expect(JSON.stringify(issuesOf(anthropicDocument(settings)))).not.toContain('sk-ant-api03-xyz');
    });

    it('requires a model', () => {
      const document = anthropicDocument({});
      delete provider(document, 0)['model'];
      expectIssue(document, 'agents[0].provider.model', 'is required');
    });
  });
});
