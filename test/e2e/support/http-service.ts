/**
 * Test support for the HTTP API's end-to-end tests: the service started from
 * its sources as a child process on a free port (`PORT=0`, the port read from
 * its log line), a temp data folder, an agents file written by the test, a
 * JSON client, an SSE reader on Node's fetch, and a model server that holds
 * its answers (for runs that must stay in flight).
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunStatusRow } from '@agent-ledger/projections';
import type { StreamedEvent } from '../../../libs/http/src/events/sse-frame';
import { scaled } from '../../support/time-scale';
import { entryArgs, serviceProcessEnv } from './entry-point';

const root = join(__dirname, '..', '..', '..');

/** A running service. */
export interface HttpService {
  readonly baseUrl: string;
  readonly dataDir: string;
  readonly workspaceDir: string;
  /** Everything it printed so far. */
  output(): string;
  /** SIGTERM, wait for the exit (SIGKILL after 10 s), remove the data folder. Returns the exit code. */
  stop(): Promise<number | null>;
}

/**
 * Starts the service with `agentsYaml` as its agents file (or the file
 * `agentsFile`, e.g. one of `config/`) and `env` on top of a fresh data folder.
 */
export async function startHttpService(
  options: ({ readonly agentsYaml: string } | { readonly agentsFile: string }) & { readonly env?: Readonly<Record<string, string>> },
): Promise<HttpService> {
  const dataDir = mkdtempSync(join(tmpdir(), 'agent-ledger-http-'));
  const workspaceDir = join(dataDir, 'workspace');
  mkdirSync(workspaceDir, { recursive: true });
  let agentsPath: string;
  if ('agentsFile' in options) {
    agentsPath = options.agentsFile;
  } else {
    agentsPath = join(dataDir, 'agents.yaml');
    writeFileSync(agentsPath, options.agentsYaml);
  }
  const child: ChildProcess = spawn(process.execPath, [...entryArgs('service')], {
    cwd: root,
    env: serviceProcessEnv({
      AGENT_LEDGER_DATA_DIR: dataDir,
      AGENTS_CONFIG: agentsPath,
      ...options.env,
    }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const port = await listeningPort(child, () => output, exited, 'The service');
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    dataDir,
    workspaceDir,
    output: () => output,
    stop: async () => {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        const killer = setTimeout(() => child.kill('SIGKILL'), scaled(10_000));
        const code = await exited;
        clearTimeout(killer);
        rmSync(dataDir, { recursive: true, force: true });
        return code;
      }
      rmSync(dataDir, { recursive: true, force: true });
      return child.exitCode;
    },
  };
}

/**
 * The port of a service started with `PORT=0`, read from its `listening on
 * http://127.0.0.1:<port>` line. Rejects when the process exits first, or
 * after 60 s (scaled for load), with everything it printed.
 */
export function listeningPort(child: ChildProcess, output: () => string, exited: Promise<number | null>, label: string): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const limitMs = scaled(60_000);
    const deadline = setTimeout(() => reject(new Error(`${label} did not start in ${limitMs / 1000} s:\n${output()}`)), limitMs);
    const look = () => {
      const match = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(output());
      if (match) {
        clearTimeout(deadline);
        resolve(Number(match[1]));
      }
    };
    child.stdout?.on('data', look);
    void exited.then((code) => {
      clearTimeout(deadline);
      reject(new Error(`${label} exited with ${code}:\n${output()}`));
    });
  });
}

/** An HTTP answer with its JSON body. */
export interface JsonAnswer<T = unknown> {
  readonly status: number;
  readonly headers: Headers;
  readonly body: T;
}

/** Sends a request and parses the JSON answer. `body` is sent as JSON unless it is a string (sent as is). */
export async function request<T = unknown>(baseUrl: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<JsonAnswer<T>> {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: (text === '' ? null : JSON.parse(text)) as T };
}

/** Polls `probe` until it returns something other than `undefined`, or fails after `timeoutMs` (scaled for load). */
export async function eventually<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + scaled(timeoutMs);
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`Timed out waiting for ${what}${last === undefined ? '' : `: ${String(last)}`}`);
}

/** Waits until the run-status read model shows the run settled, and returns its row. */
export function settledRun(baseUrl: string, runId: string, timeoutMs = 15_000): Promise<RunStatusRow> {
  return eventually(
    async () => {
      const answer = await request<RunStatusRow>(baseUrl, 'GET', `/runs/${runId}`);
      return answer.status === 200 && ['COMPLETED', 'FAILED', 'CANCELLED'].includes(answer.body.status) ? answer.body : undefined;
    },
    `run ${runId} to be settled in the read model`,
    timeoutMs,
  );
}

/** One Server-Sent Events frame. */
export interface SseFrame {
  readonly id: string | undefined;
  readonly event: string | undefined;
  readonly data: StreamedEvent;
}

/** A Server-Sent Events connection read with Node's fetch (a streamed body). */
export interface SseConnection {
  readonly status: number;
  readonly headers: Headers;
  /** The next frame with data (comments skipped); rejects after `timeoutMs` (scaled for load). */
  next(timeoutMs?: number): Promise<SseFrame>;
  /** Frames until `stop(frame)` is true (that frame included). */
  until(stop: (frame: SseFrame) => boolean, timeoutMs?: number): Promise<SseFrame[]>;
  /** Comment lines seen so far (heartbeats). */
  comments(): readonly string[];
  close(): void;
}

/** Opens an event stream. */
export async function openSse(url: string, headers: Record<string, string> = {}): Promise<SseConnection> {
  const abort = new AbortController();
  const response = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: abort.signal });
  if (response.body === null) throw new Error('no body');
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const comments: string[] = [];
  const frames: SseFrame[] = [];
  const parse = () => {
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let id: string | undefined;
      let event: string | undefined;
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) comments.push(line.slice(1).trim());
        else if (line.startsWith('id: ')) id = line.slice(4);
        else if (line.startsWith('event: ')) event = line.slice(7);
        else if (line.startsWith('data: ')) data.push(line.slice(6));
      }
      if (data.length > 0) frames.push({ id, event, data: JSON.parse(data.join('\n')) as StreamedEvent });
    }
  };
  const nextBefore = async (deadline: number): Promise<SseFrame> => {
    while (frames.length === 0) {
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new Error('Timed out waiting for an SSE frame');
      let timer: NodeJS.Timeout | undefined;
      const chunk = await Promise.race([
        reader.read(),
        new Promise<'timeout'>((resolve) => {
          timer = setTimeout(() => resolve('timeout'), remaining);
        }),
      ]);
      clearTimeout(timer);
      if (chunk === 'timeout') throw new Error('Timed out waiting for an SSE frame');
      if (chunk.done) throw new Error('The event stream ended');
      buffer += decoder.decode(chunk.value, { stream: true });
      parse();
    }
    return frames.shift() as SseFrame;
  };
  return {
    status: response.status,
    headers: response.headers,
    next: (timeoutMs = 15_000) => nextBefore(Date.now() + scaled(timeoutMs)),
    async until(stop, timeoutMs = 20_000) {
      const deadline = Date.now() + scaled(timeoutMs);
      const seen: SseFrame[] = [];
      for (;;) {
        const frame = await nextBefore(deadline);
        seen.push(frame);
        if (stop(frame)) return seen;
      }
    },
    comments: () => comments,
    close: () => abort.abort(),
  };
}

/** A chat-completions server that never answers: a run whose model call it holds stays `RUNNING` until cancelled. */
export interface HoldingModelServer {
  readonly baseUrl: string;
  /** Requests received so far, and how many of them the client aborted. */
  readonly received: () => number;
  readonly aborted: () => number;
  close(): Promise<void>;
}

export async function startHoldingModelServer(): Promise<HoldingModelServer> {
  let received = 0;
  let aborted = 0;
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    received += 1;
    req.resume();
    res.on('close', () => {
      if (!res.writableEnded) aborted += 1;
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    received: () => received,
    aborted: () => aborted,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * The agents of the HTTP tests (scripted, built-in tools), and `held`, whose model is `modelBaseUrl`.
 *
 * For approvals and input (`http-approvals.e2e-spec.ts`): `approver` writes a
 * report (files.write, pre-approved) then appends a line (files.append, NOT
 * pre-approved: the run waits for a person; a denial ends it, `endRun`);
 * `told` appends without pre-approval, and a denial is shown to the model
 * (`tellModel`); `asker` asks the user (user.ask: the run waits for input),
 * then answers.
 */
export function testAgentsYaml(modelBaseUrl: string): string {
  return `agents:
  - name: clock
    instructions: Tell the time.
    tools: [clock.now]
    maxIterations: 3
    provider:
      type: scripted
      script:
        - toolCalls:
            - tool: clock.now
        - final: tick
  - name: writer
    instructions: Write a report and log it.
    tools: [files.write, files.append]
    approvals: { preApproved: [files.write, files.append] }
    maxIterations: 4
    provider:
      type: scripted
      script:
        - toolCalls:
            - tool: files.write
              arguments: { path: report.txt, content: "report" }
        - toolCalls:
            - tool: files.append
              arguments: { path: writer.log, content: "appended\\n" }
        - final: written
  - name: idem-writer
    instructions: Log once.
    tools: [files.append]
    approvals: { preApproved: [files.append] }
    maxIterations: 3
    provider:
      type: scripted
      script:
        - toolCalls:
            - tool: files.append
              arguments: { path: idem.log, content: "once\\n" }
        - final: logged
  - name: approver
    instructions: Write a report, then log it once a person approves.
    tools: [files.write, files.append]
    approvals: { preApproved: [files.write], onDenial: endRun }
    maxIterations: 4
    provider:
      type: scripted
      script:
        - toolCalls:
            - tool: files.write
              arguments: { path: approver-report.txt, content: "approved report" }
        - toolCalls:
            - tool: files.append
              arguments: { path: approver.log, content: "approved line\\n" }
        - final: logged after approval
  - name: told
    instructions: Log a line; if a person denies it, say so.
    tools: [files.append]
    approvals: { onDenial: tellModel }
    maxIterations: 3
    provider:
      type: scripted
      script:
        - toolCalls:
            - tool: files.append
              arguments: { path: told.log, content: "told line\\n" }
        - final: the log entry was denied, so I did not write it
  - name: asker
    instructions: Ask the user which file to read, then answer.
    tools: [user.ask]
    maxIterations: 3
    provider:
      type: scripted
      script:
        - toolCalls:
            - tool: user.ask
              arguments: { question: Which file should I read? }
        - final: thanks for the answer
  - name: held
    instructions: Wait for the model.
    tools: [clock.now]
    maxIterations: 3
    provider:
      type: openai
      baseUrl: ${modelBaseUrl}
      model: held
      timeoutSeconds: 600
`;
}
