import { ToolEffect } from '@agent-ledger/domain';
import type { ConfigIssue } from '../agents/agents-config.error';
import { ConfigReader, EFFECT_KEY_MESSAGE } from '../agents/config-reader';
import { mcpToolNamesOf, validateMcpServerBindings } from './mcp-bindings-validation';
import type { McpServerBinding } from './mcp-server-binding';
import { MCP_BINDING_DEFAULTS } from './mcp-server-binding';

const CONTEXT = { source: '/srv/app/agents.yaml', baseDir: '/srv/app' };
const EFFECT_HERE = "is refused here: an MCP tool's effect is declared per tool, at mcpServers[0].tools.<tool>.effect (READ_ONLY, IDEMPOTENT_WRITE, NON_IDEMPOTENT_WRITE)";
const SECRET_SHAPES = '{ fromEnv: NAME } (an environment variable of the service) or { fromFile: path }, each with an optional prefix';

/** The brief's stdio example; each test changes one thing in a copy. */
function stdioServer(): Record<string, unknown> {
  return {
    name: 'fs',
    transport: {
      type: 'stdio',
      command: 'node',
      args: ['./node_modules/server/dist/index.js', './data'],
      cwd: '.',
      env: { LOG_LEVEL: 'info', TOKEN: { fromEnv: 'FS_TOKEN' }, CERT: { fromFile: './secret', prefix: 'x' } },
    },
    trustHints: false,
    startTimeoutSeconds: 30,
    maxInlineBytes: 65536,
    maxResultBytes: 131072,
    restart: { initialDelayMs: 1000, maxDelayMs: 30000 },
    tools: {
      read_text_file: { effect: 'READ_ONLY' },
      list_directory: {},
      write_file: { effect: 'IDEMPOTENT_WRITE', operationDeadlineSeconds: 60, dataClass: 'internal', requiresApproval: false },
      'weird-Name': { effect: 'NON_IDEMPOTENT_WRITE', as: 'fs.weird' },
    },
  };
}

function httpServer(): Record<string, unknown> {
  return {
    name: 'tickets',
    transport: {
      type: 'http',
      url: 'https://mcp.example.com/mcp',
      headers: { Authorization: { fromEnv: 'TICKETS_MCP_TOKEN', prefix: 'Bearer ' }, 'X-Tenant': 'acme' },
    },
    tools: { search: { effect: 'READ_ONLY', operationDeadlineSeconds: 20 } },
  };
}

function validate(value: unknown, context = CONTEXT): { servers: readonly McpServerBinding[] | undefined; issues: readonly ConfigIssue[] } {
  const reader = new ConfigReader();
  const servers = validateMcpServerBindings(value, 'mcpServers', reader, context);
  return { servers, issues: reader.issues };
}

/** The issues of a refused value (it must be refused: no bindings returned). */
function issuesOf(value: unknown): readonly ConfigIssue[] {
  const { servers, issues } = validate(value);
  expect(servers).toBeUndefined();
  expect(issues.length).toBeGreaterThan(0);
  return issues;
}

/** The one issue of a refused list of servers. */
function onlyIssue(...servers: unknown[]): ConfigIssue {
  const issues = issuesOf(servers);
  expect(issues).toHaveLength(1);
  return issues[0] as ConfigIssue;
}

describe('validateMcpServerBindings', () => {
  describe('valid bindings', () => {
    it('returns a stdio binding with its settings, relative paths resolved from the base folder, the source and the folder', () => {
      const { servers, issues } = validate([stdioServer()]);
      expect(issues).toEqual([]);
      expect(servers).toEqual([
        {
          name: 'fs',
          transport: {
            type: 'stdio',
            command: 'node',
            args: ['./node_modules/server/dist/index.js', './data'],
            cwd: '/srv/app',
            env: { LOG_LEVEL: 'info', TOKEN: { fromEnv: 'FS_TOKEN' }, CERT: { fromFile: './secret', prefix: 'x' } },
          },
          trustHints: false,
          startTimeoutSeconds: 30,
          maxInlineBytes: 65536,
          maxResultBytes: 131072,
          restart: { initialDelayMs: 1000, maxDelayMs: 30000 },
          tools: [
            { tool: 'read_text_file', name: 'fs.read_text_file', effect: ToolEffect.READ_ONLY },
            { tool: 'list_directory', name: 'fs.list_directory' },
            { tool: 'write_file', name: 'fs.write_file', effect: ToolEffect.IDEMPOTENT_WRITE, operationDeadlineSeconds: 60, dataClass: 'internal', requiresApproval: false },
            { tool: 'weird-Name', name: 'fs.weird', effect: ToolEffect.NON_IDEMPOTENT_WRITE },
          ],
          source: '/srv/app/agents.yaml',
          baseDir: '/srv/app',
        },
      ]);
    });

    it('returns an http binding with its headers, and the defaults of every optional setting', () => {
      const { servers, issues } = validate([httpServer()]);
      expect(issues).toEqual([]);
      expect(servers).toEqual([
        {
          name: 'tickets',
          transport: { type: 'http', url: 'https://mcp.example.com/mcp', headers: { Authorization: { fromEnv: 'TICKETS_MCP_TOKEN', prefix: 'Bearer ' }, 'X-Tenant': 'acme' } },
          trustHints: MCP_BINDING_DEFAULTS.trustHints,
          startTimeoutSeconds: 30,
          maxInlineBytes: 65_536,
          maxResultBytes: 262_144,
          restart: { initialDelayMs: 1_000, maxDelayMs: 30_000 },
          tools: [{ tool: 'search', name: 'tickets.search', effect: ToolEffect.READ_ONLY, operationDeadlineSeconds: 20 }],
          source: '/srv/app/agents.yaml',
          baseDir: '/srv/app',
        },
      ]);
    });

    it('defaults a stdio server to no arguments, no variables and the base folder as its working folder; http to no headers', () => {
      const { servers } = validate([
        { name: 'a', transport: { type: 'stdio', command: 'a-server' }, tools: { t: {} } },
        { name: 'b', transport: { type: 'http', url: 'http://127.0.0.1:8080/mcp' }, tools: { t: {} } },
      ]);
      expect(servers?.map((server) => server.transport)).toEqual([
        { type: 'stdio', command: 'a-server', args: [], cwd: '/srv/app', env: {} },
        { type: 'http', url: 'http://127.0.0.1:8080/mcp', headers: {} },
      ]);
    });

    it('resolves a command given as a relative path from the base folder, and leaves a bare name (PATH) and an absolute path', () => {
      const commands = ['./bin/server', 'bin/server', '../tools/server.sh', 'npx', '/usr/bin/node'];
      const { servers } = validate(commands.map((command, i) => ({ name: `s${i}`, transport: { type: 'stdio', command }, tools: { t: {} } })));
      expect(servers?.map((server) => server.transport.type === 'stdio' && server.transport.command)).toEqual([
        '/srv/app/bin/server',
        '/srv/app/bin/server',
        '/srv/tools/server.sh',
        'npx',
        '/usr/bin/node',
      ]);
    });

    it('resolves a relative cwd from the base folder and keeps an absolute one', () => {
      const { servers } = validate([
        { name: 'a', transport: { type: 'stdio', command: 'x', cwd: 'work/a' }, tools: { t: {} } },
        { name: 'b', transport: { type: 'stdio', command: 'x', cwd: '/var/lib/b' }, tools: { t: {} } },
      ]);
      expect(servers?.map((server) => server.transport.type === 'stdio' && server.transport.cwd)).toEqual(['/srv/app/work/a', '/var/lib/b']);
    });

    it('takes a tool without settings (YAML `tool:` gives null) as one without declaration', () => {
      const { servers, issues } = validate([{ name: 'fs', transport: { type: 'stdio', command: 'x' }, tools: { list_directory: null } }]);
      expect(issues).toEqual([]);
      expect(servers?.[0]?.tools).toEqual([{ tool: 'list_directory', name: 'fs.list_directory' }]);
    });

    it('gives none for an absent, null or empty list', () => {
      expect(validate(undefined)).toEqual({ servers: [], issues: [] });
      expect(validate(null)).toEqual({ servers: [], issues: [] });
      expect(validate([])).toEqual({ servers: [], issues: [] });
    });

    it('returns deeply frozen bindings', () => {
      const server = validate([stdioServer()]).servers?.[0];
      const transport = server?.transport;
      expect(Object.isFrozen(server)).toBe(true);
      expect(Object.isFrozen(transport)).toBe(true);
      expect(transport?.type === 'stdio' && Object.isFrozen(transport.args) && Object.isFrozen(transport.env) && Object.isFrozen(transport.env['CERT'])).toBe(true);
      expect(Object.isFrozen(server?.tools)).toBe(true);
      expect(Object.isFrozen(server?.tools[0])).toBe(true);
      expect(Object.isFrozen(server?.restart)).toBe(true);
    });
  });

  describe('the list and the servers', () => {
    it('refuses a value that is not a list, and an entry that is not a mapping', () => {
      expect(issuesOf({ fs: stdioServer() })).toEqual([{ path: 'mcpServers', message: 'must be a list, not a mapping' }]);
      expect(onlyIssue('fs')).toEqual({ path: 'mcpServers[0]', message: 'must be an MCP server binding (a mapping), not the string "fs"' });
    });

    it.each([
      ['missing', undefined, 'is required'],
      ['upper-case', 'Fs', 'must be a server name (a lower-case letter, then lower-case letters, digits and "-"; at most 31 characters), not "Fs"'],
      ['with a dot', 'my.fs', 'must be a server name (a lower-case letter, then lower-case letters, digits and "-"; at most 31 characters), not "my.fs"'],
      ['32 characters', 'a'.repeat(32), `must be a server name (a lower-case letter, then lower-case letters, digits and "-"; at most 31 characters), not "${'a'.repeat(32)}"`],
    ])('refuses a name %s', (_what, name, message) => {
      expect(onlyIssue({ ...stdioServer(), name })).toEqual({ path: 'mcpServers[0].name', message });
    });

    it('refuses a server name bound twice, naming the first', () => {
      expect(onlyIssue(stdioServer(), httpServer(), { ...httpServer(), name: 'fs' })).toEqual({
        path: 'mcpServers[2].name',
        message: '"fs" is already the name of mcpServers[0]: server names must be unique',
      });
    });

    it('refuses an unknown key, suggesting the near one and listing the known', () => {
      const server = stdioServer();
      delete server['trustHints'];
      server['trustHint'] = true;
      expect(onlyIssue(server)).toEqual({
        path: 'mcpServers[0].trustHint',
        message: 'is not a known key of an MCP server binding (did you mean trustHints?); known keys: name, transport, trustHints, startTimeoutSeconds, maxInlineBytes, maxResultBytes, restart, tools',
      });
    });

    it('refuses a trustHints that is not a boolean', () => {
      expect(onlyIssue({ ...stdioServer(), trustHints: 'yes' })).toEqual({ path: 'mcpServers[0].trustHints', message: 'must be true or false, not the string "yes"' });
    });

    it('reports every problem of every server at once', () => {
      const first = stdioServer();
      first['transport'] = { ...(first['transport'] as object), command: '' };
      const second = httpServer();
      second['tools'] = {};
      second['startTimeoutSeconds'] = 0;
      expect(issuesOf([first, second, { ...httpServer(), name: 'fs' }])).toEqual([
        { path: 'mcpServers[0].transport.command', message: 'must not be empty' },
        { path: 'mcpServers[1].startTimeoutSeconds', message: 'must be an integer from 1 to 600, not number 0' },
        { path: 'mcpServers[1].tools', message: 'must not be empty: list the tools offered to agents (a tool not listed is not offered)' },
        { path: 'mcpServers[2].name', message: '"fs" is already the name of mcpServers[0]: server names must be unique' },
      ]);
    });
  });

  describe('the transport', () => {
    it('requires a transport, and its type', () => {
      const server = stdioServer();
      delete server['transport'];
      expect(onlyIssue(server)).toEqual({
        path: 'mcpServers[0].transport',
        message: 'is required: { type: stdio, command } for a server the service starts, or { type: http, url } for one it connects to',
      });
      expect(onlyIssue({ ...stdioServer(), transport: { command: 'node' } })).toEqual({
        path: 'mcpServers[0].transport.type',
        message: 'is required: stdio (a command the service starts) or http (a Streamable HTTP endpoint)',
      });
    });

    it('refuses another type, and the keys no transport has', () => {
      expect(issuesOf([{ ...stdioServer(), transport: { type: 'sse', url: 'https://x', comand: 'y' } }])).toEqual([
        { path: 'mcpServers[0].transport.comand', message: 'is not a known key of a transport (did you mean command?); known keys: type, command, args, cwd, env, url, headers' },
        { path: 'mcpServers[0].transport.type', message: 'must be stdio or http, not the string "sse"' },
      ]);
    });

    it('refuses a key of the other transport type', () => {
      expect(onlyIssue({ ...httpServer(), transport: { type: 'http', url: 'https://x/mcp', command: 'node' } })).toEqual({
        path: 'mcpServers[0].transport.command',
        message: 'is not a known key of an http transport; known keys: type, url, headers',
      });
      expect(onlyIssue({ ...stdioServer(), transport: { type: 'stdio', command: 'node', headers: {} } })).toEqual({
        path: 'mcpServers[0].transport.headers',
        message: 'is not a known key of a stdio transport; known keys: type, command, args, cwd, env',
      });
    });

    it('says that restart and tools belong to the server, not its transport', () => {
      expect(issuesOf([{ ...stdioServer(), transport: { type: 'stdio', command: 'node', restart: {}, tools: {} } }])).toEqual([
        { path: 'mcpServers[0].transport.restart', message: 'belongs to the server, not its transport: mcpServers[0].restart' },
        { path: 'mcpServers[0].transport.tools', message: 'belong to the server, not its transport: mcpServers[0].tools' },
      ]);
    });

    it('requires a stdio command, and arguments that are strings', () => {
      expect(onlyIssue({ ...stdioServer(), transport: { type: 'stdio' } })).toEqual({ path: 'mcpServers[0].transport.command', message: 'is required' });
      expect(issuesOf([{ ...stdioServer(), transport: { type: 'stdio', command: 'node', args: ['--port', 8080, { a: 1 }] } }])).toEqual([
        { path: 'mcpServers[0].transport.args[1]', message: 'must be a string, not number 8080 (quote it: "8080")' },
        { path: 'mcpServers[0].transport.args[2]', message: 'must be a string, not a mapping' },
      ]);
      expect(onlyIssue({ ...stdioServer(), transport: { type: 'stdio', command: 'node', args: 'server.js' } })).toEqual({
        path: 'mcpServers[0].transport.args',
        message: 'must be a list, not the string "server.js"',
      });
    });

    it('refuses a variable or header name that is not one', () => {
      expect(onlyIssue({ ...stdioServer(), transport: { type: 'stdio', command: 'node', env: { '1ST': 'x' } } })).toEqual({
        path: 'mcpServers[0].transport.env["1ST"]',
        message: 'is not a variable name (letters, digits and "_", not starting with a digit)',
      });
      expect(onlyIssue({ ...httpServer(), transport: { type: 'http', url: 'https://x/mcp', headers: { 'X Tenant': 'acme' } } })).toEqual({
        path: 'mcpServers[0].transport.headers["X Tenant"]',
        message: "is not a header name (letters, digits and !#$%&'*+.^_`|~-)",
      });
    });

    it.each([
      ['not a URL', 'mcp.example.com/mcp', 'must be an http(s) URL (https://host/path)'],
      ['another scheme', 'ws://mcp.example.com/mcp', 'must be an http(s) URL, not a ws: one'],
    ])('refuses a url that is %s', (_what, url, message) => {
      expect(onlyIssue({ ...httpServer(), transport: { type: 'http', url } })).toEqual({ path: 'mcpServers[0].transport.url', message });
    });

    it('refuses a url with credentials or a secret in its query, without quoting it', () => {
      const inHeader = 'send it in a header from the environment or a file, e.g. Authorization: { fromEnv: NAME, prefix: "Bearer " }';
      const issues = issuesOf([
        { ...httpServer(), transport: { type: 'http', url: 'https://bot:hunter2@mcp.example.com/mcp' } },
        { ...httpServer(), name: 'b', transport: { type: 'http', url: 'https://bot@mcp.example.com/mcp' } },
        { ...httpServer(), name: 'c', transport: { type: 'http', url: 'https://mcp.example.com/mcp?tenant=a&api_key=hunter2' } },
      ]);
      expect(issues).toEqual([
        { path: 'mcpServers[0].transport.url', message: `must not carry credentials (user:password@): ${inHeader}` },
        { path: 'mcpServers[1].transport.url', message: `must not carry credentials (user:password@): ${inHeader}` },
        { path: 'mcpServers[2].transport.url', message: `must not carry a secret in its query (api_key=...): ${inHeader}` },
      ]);
      expect(JSON.stringify(issues)).not.toContain('hunter2');
    });

    it('takes a url with a query that holds no secret', () => {
      expect(validate([{ ...httpServer(), transport: { type: 'http', url: 'http://localhost:3001/mcp?tenant=acme' } }]).issues).toEqual([]);
    });
  });

  describe('secrets in variables and headers', () => {
    it.each(['Authorization', 'authorization', 'Proxy-Authorization', 'X-Api-Key', 'X-Auth-Token', 'Cookie', 'X-Client-Secret'])('refuses a literal header %s, without quoting it', (header) => {
      const issue = onlyIssue({ ...httpServer(), transport: { type: 'http', url: 'https://x/mcp', headers: { [header]: 'Bearer s3cr3t-value' } } });
      expect(issue.path).toBe(`mcpServers[0].transport.headers${/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(header) ? `.${header}` : `[${JSON.stringify(header)}]`}`);
      expect(issue.message).toMatch(new RegExp(`^looks like a secret \\(its name has "(authorization|token|key|secret|cookie)"\\) and must not be written in a file: use `));
      expect(issue.message.endsWith(SECRET_SHAPES)).toBe(true);
      expect(issue.message).not.toContain('s3cr3t');
    });

    it.each([
      ['API_TOKEN', 'token'],
      ['OPENAI_API_KEY', 'key'],
      ['DB_PASSWORD', 'password'],
      ['client_secret', 'secret'],
    ])('refuses a literal variable %s', (name, word) => {
      expect(onlyIssue({ ...stdioServer(), transport: { type: 'stdio', command: 'node', env: { [name]: 'abc' } } })).toEqual({
        path: `mcpServers[0].transport.env.${name}`,
        message: `looks like a secret (its name has "${word}") and must not be written in a file: use ${SECRET_SHAPES}`,
      });
    });

    it('takes a literal whose name does not look like a secret, and a secret from the environment or a file, with its prefix', () => {
      const { servers, issues } = validate([
        {
          ...httpServer(),
          transport: {
            type: 'http',
            url: 'https://x/mcp',
            headers: { 'X-Tenant': 'acme', Authorization: { fromFile: '/run/secrets/token', prefix: 'Bearer ' }, 'X-Api-Key': { fromEnv: 'X_API_KEY' } },
          },
        },
      ]);
      expect(issues).toEqual([]);
      expect(servers?.[0]?.transport).toEqual({
        type: 'http',
        url: 'https://x/mcp',
        headers: { 'X-Tenant': 'acme', Authorization: { fromFile: '/run/secrets/token', prefix: 'Bearer ' }, 'X-Api-Key': { fromEnv: 'X_API_KEY' } },
      });
    });

    it('refuses a value source with both, neither, a bad variable name, an empty file, a prefix that is no string or an unknown key', () => {
      const env = (value: unknown) => ({ ...stdioServer(), transport: { type: 'stdio', command: 'node', env: { TOKEN: value } } });
      const at = 'mcpServers[0].transport.env.TOKEN';
      expect(onlyIssue(env({ fromEnv: 'A', fromFile: '/b' }))).toEqual({ path: at, message: 'must have fromEnv or fromFile, not both' });
      expect(onlyIssue(env({ prefix: 'Bearer ' }))).toEqual({ path: at, message: `must have fromEnv or fromFile: ${SECRET_SHAPES}` });
      expect(onlyIssue(env({ fromEnv: 'MY-TOKEN' }))).toEqual({
        path: `${at}.fromEnv`,
        message: 'must be a variable name (letters, digits and "_", not starting with a digit), not "MY-TOKEN"',
      });
      expect(onlyIssue(env({ fromFile: ' ' }))).toEqual({ path: `${at}.fromFile`, message: 'must not be empty' });
      expect(onlyIssue(env({ fromEnv: 'A', prefix: 1 }))).toEqual({ path: `${at}.prefix`, message: 'must be a string, not number 1' });
      expect(issuesOf([env({ formEnv: 'A' })])).toEqual([
        { path: `${at}.formEnv`, message: 'is not a known key of a value from the environment or a file (did you mean fromEnv?); known keys: fromEnv, fromFile, prefix' },
        { path: at, message: `must have fromEnv or fromFile: ${SECRET_SHAPES}` },
      ]);
    });

    it('refuses a number or boolean value, saying to quote it', () => {
      expect(onlyIssue({ ...stdioServer(), transport: { type: 'stdio', command: 'node', env: { PORT: 8080 } } })).toEqual({
        path: 'mcpServers[0].transport.env.PORT',
        message: `must be a string or ${SECRET_SHAPES}, not number 8080 (quote it to pass it as text: "8080")`,
      });
    });
  });

  describe('the effect carve-out', () => {
    it.each([ToolEffect.READ_ONLY, ToolEffect.IDEMPOTENT_WRITE, ToolEffect.NON_IDEMPOTENT_WRITE])('accepts effect %s on a tool', (effect) => {
      const { servers, issues } = validate([{ ...httpServer(), tools: { search: { effect } } }]);
      expect(issues).toEqual([]);
      expect(servers?.[0]?.tools[0]?.effect).toBe(effect);
    });

    it('refuses an effect that is not one of the three', () => {
      expect(onlyIssue({ ...httpServer(), tools: { search: { effect: 'read_only' } } })).toEqual({
        path: 'mcpServers[0].tools.search.effect',
        message: 'must be one of READ_ONLY, IDEMPOTENT_WRITE, NON_IDEMPOTENT_WRITE, not the string "read_only"',
      });
    });

    it.each(['effect', 'effects', 'toolEffects'])('refuses %s on the server, its transport and its restart policy, saying where an MCP tool declares it', (key) => {
      const server = { ...stdioServer(), [key]: 'READ_ONLY' };
      server['transport'] = { ...(server['transport'] as object), [key]: 'READ_ONLY' };
      server['restart'] = { [key]: 'READ_ONLY' };
      expect(issuesOf([server])).toEqual([
        { path: `mcpServers[0].${key}`, message: EFFECT_HERE },
        { path: `mcpServers[0].transport.${key}`, message: EFFECT_HERE },
        { path: `mcpServers[0].restart.${key}`, message: EFFECT_HERE },
      ]);
    });

    it.each(['effects', 'toolEffects'])('refuses %s on a tool, naming the key effect', (key) => {
      expect(onlyIssue({ ...httpServer(), tools: { search: { [key]: 'READ_ONLY' } } })).toEqual({
        path: `mcpServers[0].tools.search.${key}`,
        message: 'is refused: an MCP tool declares its effect with the key effect (READ_ONLY, IDEMPOTENT_WRITE, NON_IDEMPOTENT_WRITE)',
      });
    });

    it('refuses an effect key in a value source with the general message', () => {
      expect(issuesOf([{ ...httpServer(), transport: { type: 'http', url: 'https://x/mcp', headers: { 'X-Tenant': { fromEnv: 'T', effect: 'READ_ONLY' } } } }])).toEqual([
        { path: 'mcpServers[0].transport.headers["X-Tenant"].effect', message: EFFECT_KEY_MESSAGE },
      ]);
      expect(EFFECT_KEY_MESSAGE).toContain("only an MCP server's tool declares its effect in its binding, at mcpServers[].tools.<tool>.effect");
    });

    it('refuses an effect given alone for a tool, showing the mapping to write', () => {
      expect(onlyIssue({ ...httpServer(), tools: { search: 'READ_ONLY' } })).toEqual({
        path: 'mcpServers[0].tools.search',
        message: "must be the tool's settings (a mapping), not the effect alone: write { effect: READ_ONLY }",
      });
    });

    it('takes a tool named like an effect key: tool names are the server\'s data', () => {
      const { servers, issues } = validate([{ ...httpServer(), tools: { effects: { effect: 'READ_ONLY' } } }]);
      expect(issues).toEqual([]);
      expect(servers?.[0]?.tools).toEqual([{ tool: 'effects', name: 'tickets.effects', effect: 'READ_ONLY' }]);
    });
  });

  describe('the tools', () => {
    it('requires a non-empty mapping', () => {
      const server = httpServer();
      delete server['tools'];
      expect(onlyIssue(server)).toEqual({
        path: 'mcpServers[0].tools',
        message: 'is required: the tools offered to agents, each with its settings (read_file: { effect: READ_ONLY }); a tool not listed is not offered',
      });
      expect(onlyIssue({ ...httpServer(), tools: ['search'] })).toEqual({
        path: 'mcpServers[0].tools',
        message: "must be a mapping of the server's tool names to their settings (read_file: { effect: READ_ONLY }), not a list",
      });
    });

    it('refuses a key that is no MCP tool name, and an unknown setting', () => {
      expect(issuesOf([{ ...httpServer(), tools: { 'search tickets': {}, ['x'.repeat(129)]: {}, search: { deadline: 5 } } }])).toEqual([
        { path: 'mcpServers[0].tools["search tickets"]', message: 'is not an MCP tool name (1 to 128 letters, digits, "_", "." or "-")' },
        { path: `mcpServers[0].tools.${'x'.repeat(129)}`, message: 'is not an MCP tool name (1 to 128 letters, digits, "_", "." or "-")' },
        {
          path: 'mcpServers[0].tools.search.deadline',
          message: "is not a known key of an MCP tool's settings; known keys: effect, operationDeadlineSeconds, dataClass, requiresApproval, as",
        },
      ]);
    });

    it('refuses a data class, an approval flag and a deadline out of their values', () => {
      expect(issuesOf([{ ...httpServer(), tools: { search: { dataClass: 'secret', requiresApproval: 'no', operationDeadlineSeconds: 86_401 } } }])).toEqual([
        { path: 'mcpServers[0].tools.search.operationDeadlineSeconds', message: 'must be an integer from 1 to 86400, not number 86401' },
        { path: 'mcpServers[0].tools.search.dataClass', message: 'must be one of public, internal, confidential, personal, not the string "secret"' },
        { path: 'mcpServers[0].tools.search.requiresApproval', message: 'must be true or false, not the string "no"' },
      ]);
      expect(onlyIssue({ ...httpServer(), tools: { search: { operationDeadlineSeconds: 0 } } }).message).toBe('must be an integer from 1 to 86400, not number 0');
      expect(onlyIssue({ ...httpServer(), tools: { search: { operationDeadlineSeconds: 2.5 } } }).message).toBe('must be an integer from 1 to 86400, not number 2.5');
    });

    it('refuses a tool whose <server>.<tool> is no tool name, suggesting as; and takes it with as', () => {
      const long = `search_${'x'.repeat(60)}`;
      expect(onlyIssue({ ...httpServer(), tools: { [long]: { effect: 'READ_ONLY' } } })).toEqual({
        path: `mcpServers[0].tools.${long}`,
        message: `gives the tool name "tickets.${long}", which is not one (a letter, then letters, digits, ".", "_", "-"; at most 64 characters): name it with as: tickets.<name>`,
      });
      const { servers } = validate([{ ...httpServer(), tools: { [long]: { effect: 'READ_ONLY', as: 'tickets.search_long' } } }]);
      expect(servers?.[0]?.tools).toEqual([{ tool: long, name: 'tickets.search_long', effect: 'READ_ONLY' }]);
    });

    it('refuses an as that is no tool name, or not under the server\'s name', () => {
      expect(onlyIssue({ ...httpServer(), tools: { search: { as: 'tickets search' } } })).toEqual({
        path: 'mcpServers[0].tools.search.as',
        message: 'must be a tool name (a letter, then letters, digits, ".", "_", "-"; at most 64 characters), not "tickets search"',
      });
      expect(onlyIssue({ ...httpServer(), tools: { search: { as: 'files.search' } } })).toEqual({
        path: 'mcpServers[0].tools.search.as',
        message: 'must start with "tickets." (the server\'s name), not "files.search": an MCP tool is named <server>.<name>',
      });
    });

    it('refuses two tools of one name in a server', () => {
      expect(onlyIssue({ ...httpServer(), tools: { search: {}, find: { as: 'tickets.search' } } })).toEqual({
        path: 'mcpServers[0].tools.find',
        message: 'gives the tool name "tickets.search", as mcpServers[0].tools.search does: names must be unique (give one of them another with as)',
      });
    });
  });

  describe('numbers', () => {
    it.each([
      ['startTimeoutSeconds', 0, 'must be an integer from 1 to 600, not number 0'],
      ['startTimeoutSeconds', 601, 'must be an integer from 1 to 600, not number 601'],
      ['startTimeoutSeconds', 1.5, 'must be an integer from 1 to 600, not number 1.5'],
      ['startTimeoutSeconds', '30', 'must be an integer from 1 to 600, not the string "30"'],
      ['maxInlineBytes', 1023, 'must be an integer from 1024 to 16777216, not number 1023'],
      ['maxInlineBytes', 16_777_217, 'must be an integer from 1024 to 16777216, not number 16777217'],
      ['maxResultBytes', 1023, 'must be an integer from 1024 to 16777216, not number 1023'],
      ['maxResultBytes', 16_777_217, 'must be an integer from 1024 to 16777216, not number 16777217'],
    ])('refuses %s %p', (key, value, message) => {
      expect(onlyIssue({ ...httpServer(), [key]: value })).toEqual({ path: `mcpServers[0].${key}`, message });
    });

    it('takes the bounds', () => {
      const { servers } = validate([{ ...httpServer(), startTimeoutSeconds: 600, maxInlineBytes: 1024, maxResultBytes: 1024, tools: { search: { operationDeadlineSeconds: 86_400 } } }]);
      expect(servers?.[0]).toMatchObject({ startTimeoutSeconds: 600, maxInlineBytes: 1024, maxResultBytes: 1024, tools: [{ operationDeadlineSeconds: 86_400 }] });
      expect(validate([{ ...httpServer(), startTimeoutSeconds: 1, maxInlineBytes: 16_777_216, maxResultBytes: 16_777_216 }]).issues).toEqual([]);
    });

    it('refuses restart delays that are not positive integers, or an initial delay above the maximum', () => {
      expect(issuesOf([{ ...stdioServer(), restart: { initialDelayMs: 0, maxDelayMs: 1.5 } }])).toEqual([
        { path: 'mcpServers[0].restart.initialDelayMs', message: 'must be an integer from 1 to 3600000, not number 0' },
        { path: 'mcpServers[0].restart.maxDelayMs', message: 'must be an integer from 1 to 3600000, not number 1.5' },
      ]);
      expect(onlyIssue({ ...stdioServer(), restart: { initialDelayMs: 5000, maxDelayMs: 2000 } })).toEqual({
        path: 'mcpServers[0].restart.maxDelayMs',
        message: 'must keep initialDelayMs (5000) at most maxDelayMs (2000)',
      });
      expect(onlyIssue({ ...stdioServer(), restart: { maxDelayMs: 500 } })).toEqual({
        path: 'mcpServers[0].restart.maxDelayMs',
        message: 'must keep initialDelayMs (1000, the default) at most maxDelayMs (500)',
      });
      expect(onlyIssue({ ...stdioServer(), restart: { initialDelayMs: 60_000 } })).toEqual({
        path: 'mcpServers[0].restart.initialDelayMs',
        message: 'must keep initialDelayMs (60000) at most maxDelayMs (30000, the default)',
      });
    });

    it('fills a restart policy given in part with the defaults', () => {
      expect(validate([{ ...stdioServer(), restart: { maxDelayMs: 5000 } }]).servers?.[0]?.restart).toEqual({ initialDelayMs: 1000, maxDelayMs: 5000 });
    });
  });
});

describe('mcpToolNamesOf', () => {
  it('names the tools of bindings as far as they can be read, valid or not', () => {
    expect(mcpToolNamesOf([stdioServer(), { name: 'bad name', tools: { x: null } }, { name: 'no-tools' }, 'junk'])).toEqual([
      'fs.read_text_file',
      'fs.list_directory',
      'fs.write_file',
      'fs.weird',
      'bad name.x',
    ]);
    expect(mcpToolNamesOf(undefined)).toEqual([]);
  });
});

describe('ConfigReader.object and effect keys', () => {
  it('refuses an effect key even when the known keys list it, unless the mapping declares a tool effect, and then only effect', () => {
    const reader = new ConfigReader();
    reader.object({ effect: 'READ_ONLY' }, 'a', 'a thing', ['effect']);
    reader.object({ effect: 'READ_ONLY', effects: [], toolEffects: {} }, 'b', 'a tool binding', ['effect', 'effects', 'toolEffects'], {}, { declaresToolEffect: true });
    expect(reader.issues).toEqual([
      { path: 'a.effect', message: EFFECT_KEY_MESSAGE },
      { path: 'b.effects', message: EFFECT_KEY_MESSAGE },
      { path: 'b.toolEffects', message: EFFECT_KEY_MESSAGE },
    ]);
  });
});
