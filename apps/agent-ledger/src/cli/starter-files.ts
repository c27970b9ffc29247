/**
 * The files `agent-ledger init` writes: a project with a plugin (one
 * read-only and one write tool), an agents file whose agent uses them with a
 * scripted model (it runs without an API key), the service's configuration
 * and a README. Pure: the paths and contents only.
 */

/** What the starter depends on, and its name. */
export interface StarterOptions {
  /** The project's npm name. */
  readonly name: string;
  /** The version of `agent-ledger` and `@agent-ledger/*` to depend on (this CLI's own). */
  readonly version: string;
  /**
   * Also bind the MCP reference filesystem server (`init --mcp`): its package
   * as a dependency, a `files/` folder it may read and write, its binding in
   * the agents file with declared effects, and an agent that uses it.
   * @default false
   */
  readonly mcp?: boolean;
}

/** One file of the starter: its path relative to the project's folder, and its content. */
export interface StarterFile {
  readonly path: string;
  readonly content: string;
}

/** The agent the starter defines. */
export const STARTER_AGENT = 'note-keeper';

/** The agent `init --mcp` adds, on the MCP filesystem server's tools. */
export const STARTER_MCP_AGENT = 'file-clerk';

/**
 * The version of `@modelcontextprotocol/server-filesystem` the `--mcp`
 * starter pins: the one agent-ledger's tests run against (a server's tools,
 * their schemas and hints can change from one version to the next).
 */
export const STARTER_FILESYSTEM_SERVER_VERSION = '2026.8.31';

/** The starter's files, in the order they are written. */
export function starterFiles({ name, version, mcp = false }: StarterOptions): readonly StarterFile[] {
  return [
    { path: 'package.json', content: `${JSON.stringify(packageJson(name, version, mcp), null, 2)}\n` },
    { path: 'tsconfig.json', content: `${JSON.stringify(TSCONFIG, null, 2)}\n` },
    { path: 'src/tools.ts', content: TOOLS_TS },
    { path: 'agents.yaml', content: mcp ? MCP_SERVERS_YAML + AGENTS_YAML + MCP_AGENT_YAML : AGENTS_YAML },
    { path: 'agent-ledger.yaml', content: SERVICE_CONFIG_YAML },
    { path: '.gitignore', content: 'node_modules/\ndist/\ndata/\n' },
    ...(mcp ? [{ path: 'files/README.md', content: FILES_README }] : []),
    { path: 'README.md', content: readme(name, mcp) },
  ];
}

/** An npm package name made from a folder's name: lower case, `-` for anything else. */
export function packageNameOf(folderName: string): string {
  const name = folderName.toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^[._-]+/, '').replace(/-+$/, '').slice(0, 214);
  return name === '' ? 'agent-ledger-project' : name;
}

function packageJson(name: string, version: string, mcp: boolean) {
  return {
    name,
    version: '0.1.0',
    private: true,
    description: 'Tools and agents for agent-ledger',
    scripts: {
      build: 'tsc -p tsconfig.json',
      serve: 'agent-ledger serve --config agent-ledger.yaml',
      worker: 'agent-ledger worker --config agent-ledger.yaml',
    },
    dependencies: {
      'agent-ledger': version,
      '@agent-ledger/domain': version,
      '@agent-ledger/runtime': version,
      ...(mcp ? { '@modelcontextprotocol/server-filesystem': STARTER_FILESYSTEM_SERVER_VERSION } : {}),
    },
    devDependencies: {
      '@types/node': '^20.19.0',
      typescript: '~5.9.0',
    },
  };
}

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'node16',
    moduleResolution: 'node16',
    lib: ['ES2023'],
    types: ['node'],
    outDir: 'dist',
    rootDir: 'src',
    strict: true,
    experimentalDecorators: true,
    emitDecoratorMetadata: true,
    esModuleInterop: true,
    skipLibCheck: true,
    sourceMap: true,
  },
  include: ['src'],
};

const TOOLS_TS = `import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ToolEffect } from '@agent-ledger/domain';
import type { DeclaresToolEffect, JsonObject, JsonValue } from '@agent-ledger/domain';
import { definePlugin, Tool } from '@agent-ledger/runtime';
import type { AgentTool, ToolContext } from '@agent-ledger/runtime';

/**
 * Where the notes are kept: notes/ in the service's workspace, which every
 * call gets as context.workspaceDir (WORKSPACE_DIR, by default
 * <AGENT_LEDGER_DATA_DIR>/workspace, here ./data/workspace). Never a path
 * relative to the folder the service runs in: in a container that folder is
 * read-only, and a worker process may run in another one.
 */
function notesDir(context: ToolContext): string {
  if (context.workspaceDir === undefined) {
    throw new Error('The notes are kept in the workspace of the service, and it has none: set WORKSPACE_DIR (tools.workspaceDir)');
  }
  return join(context.workspaceDir, 'notes');
}

const notePath = (context: ToolContext, title: string): string => join(notesDir(context), \`\${encodeURIComponent(title)}.txt\`);

const TITLE = { type: 'string', minLength: 1, maxLength: 100 } as const;

interface ReadNoteArgs extends JsonObject {
  readonly title: string;
}

/** \`notes.read\`: reads a note. READ_ONLY: it changes nothing, so its audit is fail-soft and it may be retried freely. */
@Tool({
  name: 'notes.read',
  description: 'Reads the note of this title; null when there is none.',
  parameters: { type: 'object', properties: { title: TITLE }, required: ['title'], additionalProperties: false },
})
export class ReadNoteTool implements AgentTool<ReadNoteArgs>, DeclaresToolEffect {
  getEffect(): ToolEffect {
    return ToolEffect.READ_ONLY;
  }

  async execute(args: ReadNoteArgs, context: ToolContext): Promise<JsonValue> {
    try {
      return await readFile(notePath(context, args.title), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }
}

interface SaveNoteArgs extends JsonObject {
  readonly title: string;
  readonly text: string;
}

/**
 * \`notes.save\`: writes a note, replacing it. IDEMPOTENT_WRITE: saving the same
 * note again changes nothing more, so the runtime may retry it (with the same
 * idempotency key) after a crash; its execution is fenced and its audit
 * recorded before the run goes on.
 */
@Tool({
  name: 'notes.save',
  description: 'Saves a note under a title, replacing any note of that title.',
  parameters: {
    type: 'object',
    properties: { title: TITLE, text: { type: 'string', maxLength: 10000 } },
    required: ['title', 'text'],
    additionalProperties: false,
  },
  operationDeadlineSeconds: 30,
})
export class SaveNoteTool implements AgentTool<SaveNoteArgs>, DeclaresToolEffect {
  getEffect(): ToolEffect {
    return ToolEffect.IDEMPOTENT_WRITE;
  }

  async execute(args: SaveNoteArgs, context: ToolContext): Promise<JsonValue> {
    context.signal.throwIfAborted();
    await mkdir(notesDir(context), { recursive: true });
    await writeFile(notePath(context, args.title), args.text, 'utf8');
    return { saved: args.title, idempotencyKey: context.idempotencyKey };
  }
}

/** The plugin the service loads (agent-ledger.yaml: plugins: [./dist/tools.js]). */
export default definePlugin({ tools: [ReadNoteTool, SaveNoteTool] });
`;

const AGENTS_YAML = `# The agents of this project (agent-ledger.yaml names this file). Format: see
# agent-ledger's docs/models-and-agents.md.
agents:
  - name: ${STARTER_AGENT}
    description: Saves a note, then reads it back.
    instructions: >-
      You keep notes. Save what you are asked to remember under a short title,
      read it back to check it, and answer with one sentence.
    tools: [notes.save, notes.read]
    maxIterations: 5
    # A write waits for a person's approval (POST /runs/{runId}/approval)
    # unless it is pre-approved here.
    approvals:
      preApproved: [notes.save]
    # A scripted model plays these rounds, so the agent runs without an API key.
    # For a real model, replace the provider with, e.g.:
    #   provider:
    #     type: openai
    #     baseUrl: https://api.openai.com/v1   # or http://localhost:11434/v1 (Ollama)
    #     model: gpt-4o-mini
    #     apiKeyEnv: OPENAI_API_KEY            # the variable's name, never the key
    provider:
      type: scripted
      script:
        - toolCalls:
            - tool: notes.save
              arguments: { title: groceries, text: "milk, bread" }
        - toolCalls:
            - tool: notes.read
              arguments: { title: groceries }
        # The answer says only what the run recorded: {{result:notes.read}} is
        # what notes.read returned, {{outcome:notes.save}} how the save ended
        # (succeeded, failed or denied), {{error:notes.save}} the error it
        # gave. finalIfFailed answers instead of final when a call failed,
        # finalIfDenied when a person denied one.
        - final: "Saved the groceries note and read it back: {{result:notes.read}}"
          finalIfFailed: "Saving the groceries note {{outcome:notes.save}}, and reading it back {{outcome:notes.read}}."
          finalIfDenied: "I did not save the groceries note: {{error:notes.save}}"
`;

const MCP_SERVERS_YAML = `# MCP servers whose tools the agents below may call, as <server>.<tool>
# (agent-ledger's docs/mcp.md). The service starts this one, supervises it,
# and checks at start that every tool listed here exists. A tool's effect is
# declared here: where nothing declares it, it is NON_IDEMPOTENT_WRITE, and
# the server's own hints may only make it stricter.
mcpServers:
  - name: fs
    transport:
      type: stdio
      command: node
      # Relative paths are from this file's folder, where the server runs:
      # the server may read and write in ./files only.
      args: [./node_modules/@modelcontextprotocol/server-filesystem/dist/index.js, ./files]
    tools:
      read_text_file: { effect: READ_ONLY }
      list_directory: { effect: READ_ONLY }
      # Writing the same content to the same file again changes nothing more.
      write_file: { effect: IDEMPOTENT_WRITE, operationDeadlineSeconds: 30 }

`;

const MCP_AGENT_YAML = `
  - name: ${STARTER_MCP_AGENT}
    description: Writes a file through the MCP filesystem server, then reads it back.
    instructions: >-
      You keep files. Write what you are asked to keep into a file, read it
      back to check it, and answer with one sentence.
    tools: [fs.write_file, fs.read_text_file]
    maxIterations: 5
    approvals:
      preApproved: [fs.write_file]
    provider:
      type: scripted
      script:
        - toolCalls:
            - tool: fs.write_file
              arguments: { path: groceries.txt, content: "milk, bread" }
        - toolCalls:
            - tool: fs.read_text_file
              arguments: { path: groceries.txt }
        - final: "Wrote groceries.txt and read it back: {{result:fs.read_text_file/structuredContent/content}}"
          finalIfFailed: "Writing groceries.txt {{outcome:fs.write_file}}, and reading it back {{outcome:fs.read_text_file}}."
          finalIfDenied: "I did not write groceries.txt: {{error:fs.write_file}}"
`;

const FILES_README = `The folder the MCP filesystem server (agents.yaml, mcpServers: fs) may read
and write: the ${STARTER_MCP_AGENT} agent writes groceries.txt here.
`;

const SERVICE_CONFIG_YAML = `# agent-ledger's settings (agent-ledger serve --config agent-ledger.yaml).
# Relative paths are from this file's folder; an environment variable of the
# same setting wins (AGENT_LEDGER_PLUGINS, AGENTS_CONFIG, AGENT_LEDGER_DATA_DIR,
# WORKSPACE_DIR).
plugins: [./dist/tools.js]
agents:
  configFile: ./agents.yaml
store:
  dataDir: ./data
# The tools' workspace, given to every tool call as context.workspaceDir (the
# notes are in its notes/ folder): by default the data folder's workspace/,
# here ./data/workspace. To keep it elsewhere:
# tools:
#   workspaceDir: /srv/notes-workspace
server:
  port: 3000
`;

function readme(name: string, mcp: boolean): string {
  const mcpLines = mcp
    ? `Run the agent on the MCP filesystem server's tools (it writes ./files/groceries.txt): \`npx agent-ledger runs start --agent ${STARTER_MCP_AGENT} --input "keep the groceries" --mode interactive\`
`
    : '';
  return `# ${name}: tools and an agent for agent-ledger
Install: \`npm install\`
Build the plugin (src/tools.ts to dist/tools.js): \`npm run build\`
Serve (http://127.0.0.1:3000, data in ./data, the notes in the tools' workspace ./data/workspace/notes): \`npm run serve\`
Run the agent: \`curl -s -X POST http://127.0.0.1:3000/runs -H 'content-type: application/json' -d '{"agent":"${STARTER_AGENT}","input":"remember the groceries","mode":"interactive"}'\` (or \`npx agent-ledger runs start --agent ${STARTER_AGENT} --input "remember the groceries" --mode interactive\`)
${mcpLines}`;
}
