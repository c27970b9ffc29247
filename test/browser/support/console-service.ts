/**
 * The service the browser tests drive: the BUILT service (`dist/`, which
 * serves the console at `/console/`) started as a child process on a free
 * port, behind three API keys, with the agents below, the audit streams in a
 * file of their own (`AUDIT_STORE_PATH`: the failed-closed test locks it).
 * `test/e2e/support/http-service.ts` starts the sources outside CI, so this
 * starter is its own; the JSON client and the keys are the e2e tier's.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunStatusRow } from '@agent-ledger/projections';
import type { TestKey } from '../../e2e/support/http-auth-support';
import { apiKeysEnv, testKey, withKey } from '../../e2e/support/http-auth-support';
import { eventually, listeningPort } from '../../e2e/support/http-service';
import { BUILT_SERVICE, ROOT } from './built-service';

export const ALL_SCOPES = ['runs:submit', 'runs:read', 'runs:approve', 'audit:read', 'operate', 'metrics:read'] as const;

/** The keys of the console tests: ids as the console shows them in `signed-in-as`. */
export interface ConsoleKeys {
  /** Every scope. */
  readonly operator: TestKey;
  /** Reviews: `audit:read`, `runs:read`. */
  readonly auditor: TestKey;
  /** Starts and reads the runs of `scribe` only: `runs:submit`, `runs:read`. */
  readonly clerk: TestKey;
}

export function consoleKeys(): ConsoleKeys {
  return {
    operator: testKey('operator', ALL_SCOPES),
    auditor: testKey('auditor', ['audit:read', 'runs:read']),
    clerk: testKey('clerk', ['runs:submit', 'runs:read'], { agents: ['scribe'] }),
  };
}

/** What `files.write` of the live agent writes (the gated model's arguments). */
export const LIVE_WRITE = { path: 'live.txt', content: 'written live' } as const;

/**
 * The agents:
 * - `scribe` writes a file (files.write, IDEMPOTENT_WRITE, pre-approved) and completes at once;
 * - `approver` appends a line (files.append, NON_IDEMPOTENT_WRITE, NOT pre-approved):
 *   its run waits `WAITING_FOR_APPROVAL`; a denial ends it;
 * - `ledger-writer` writes a file (pre-approved): the failed-closed case runs it while the audit store is locked;
 * - `asker` asks the user a question (user.ask): its run waits `WAITING_FOR_INPUT` until someone answers;
 * - `live-writer` (with a model server) writes a file through an OpenAI-compatible model the test holds
 *   (`gated-model.ts`): its run stays RUNNING until the test lets the model answer.
 */
export function consoleAgentsYaml(modelBaseUrl: string | null): string {
  const live =
    modelBaseUrl === null
      ? ''
      : `  - name: live-writer
    description: Writes a file once the model answers.
    instructions: Write the file.
    tools: [files.write]
    approvals: { preApproved: [files.write] }
    maxIterations: 3
    provider:
      type: openai
      baseUrl: ${modelBaseUrl}
      model: gated
      timeoutSeconds: 600
`;
  return `agents:
  - name: scribe
    description: Writes a note and completes.
    instructions: Write the note.
    tools: [files.write]
    approvals: { preApproved: [files.write] }
    maxIterations: 3
    provider:
      type: scripted
      script:
        - toolCalls:
            - tool: files.write
              arguments: { path: note.txt, content: "a note" }
        - final: the note is written
  - name: approver
    description: Appends to a log once a person approves.
    instructions: Log the line once a person approves.
    tools: [files.append]
    approvals: { onDenial: endRun }
    maxIterations: 3
    provider:
      type: scripted
      script:
        - toolCalls:
            - tool: files.append
              arguments: { path: approved.log, content: "approved line\\n" }
        - final: logged after approval
  - name: ledger-writer
    description: Writes the ledger file.
    instructions: Write the ledger.
    tools: [files.write]
    approvals: { preApproved: [files.write] }
    maxIterations: 3
    provider:
      type: scripted
      script:
        - toolCalls:
            - tool: files.write
              arguments: { path: ledger.txt, content: "ledger line" }
        - final: the ledger is written
  - name: asker
    description: Asks which report to file, then files it.
    instructions: Ask which report to file.
    tools: [user.ask]
    maxIterations: 3
    provider:
      type: scripted
      script:
        - toolCalls:
            - tool: user.ask
              arguments: { question: Which report should I file? }
        - final: filed, as answered
${live}`;
}

/** A running built service. */
export interface ConsoleService {
  readonly baseUrl: string;
  /** `${baseUrl}/console/` */
  readonly consoleUrl: string;
  readonly dataDir: string;
  readonly workspaceDir: string;
  /** The audit store's file (`AUDIT_STORE_PATH`). */
  readonly auditStorePath: string;
  readonly keys: ConsoleKeys;
  /** A JSON client with the key's `Authorization`. */
  as(key: TestKey): ReturnType<typeof withKey>;
  /** Starts a queued run through the API (as the operator); returns its id. */
  startRun(agent: string, input: string): Promise<string>;
  /** Waits until the run-status read model shows the run with `status`, and returns the row. */
  runWith(runId: string, status: string, timeoutMs?: number): Promise<RunStatusRow>;
  output(): string;
  /** SIGTERM (SIGKILL after 10 s), then removes the data folder. */
  stop(): Promise<number | null>;
}

export async function startConsoleService(options: { readonly modelBaseUrl?: string; readonly env?: Readonly<Record<string, string>> } = {}): Promise<ConsoleService> {
  const keys = consoleKeys();
  const dataDir = mkdtempSync(join(tmpdir(), 'agent-ledger-browser-'));
  const workspaceDir = join(dataDir, 'workspace');
  mkdirSync(workspaceDir, { recursive: true });
  const agentsPath = join(dataDir, 'agents.yaml');
  writeFileSync(agentsPath, consoleAgentsYaml(options.modelBaseUrl ?? null));
  const auditStorePath = join(dataDir, 'audit.sqlite');
  const child: ChildProcess = spawn(process.execPath, [BUILT_SERVICE], {
    cwd: ROOT,
    env: {
      ...process.env,
      EVENTSTORE_CONNECTION_STRING: '',
      HOST: '127.0.0.1',
      PORT: '0',
      AGENT_LEDGER_DATA_DIR: dataDir,
      WORKSPACE_DIR: workspaceDir,
      AGENTS_CONFIG: agentsPath,
      AUDIT_STORE_PATH: auditStorePath,
      AUTH_MODE: 'api-keys',
      API_KEYS: apiKeysEnv([keys.operator, keys.auditor, keys.clerk]),
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const stop = async (): Promise<number | null> => {
    let code = child.exitCode;
    if (code === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      code = await exited;
      clearTimeout(killer);
    }
    rmSync(dataDir, { recursive: true, force: true });
    return code;
  };
  let port: number;
  try {
    port = await listeningPort(child, () => output, exited, 'The built service');
  } catch (error) {
    await stop();
    throw error;
  }
  const baseUrl = `http://127.0.0.1:${port}`;
  const as = (key: TestKey) => withKey(baseUrl, key);
  return {
    baseUrl,
    consoleUrl: `${baseUrl}/console/`,
    dataDir,
    workspaceDir,
    auditStorePath,
    keys,
    as,
    startRun: async (agent, input) => {
      const answer = await as(keys.operator).post<{ runId: string }>('/runs', { agent, input });
      if (answer.status !== 202) throw new Error(`POST /runs ${agent}: ${answer.status} ${JSON.stringify(answer.body)}`);
      return answer.body.runId;
    },
    runWith: (runId, status, timeoutMs = 15_000) =>
      eventually(
        async () => {
          const answer = await as(keys.operator).get<RunStatusRow>(`/runs/${encodeURIComponent(runId)}`);
          return answer.status === 200 && answer.body.status === status ? answer.body : undefined;
        },
        `run ${runId} to be ${status} in the read model`,
        timeoutMs,
      ),
    output: () => output,
    stop,
  };
}
