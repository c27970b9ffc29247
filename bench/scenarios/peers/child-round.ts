/**
 * A peer's round runs in a Node process of its own, forked for the round:
 * the peer's SDK (DBOS's executor, Restate's endpoint) keeps process-wide
 * state, and the bench process (a Jest worker in the tests) must not inherit
 * it. The child gets one request over IPC, answers once and exits.
 */
import { fork } from 'node:child_process';
import { join } from 'node:path';
import type { SubjectRoundResult } from './workload';

const ROOT = join(__dirname, '..', '..', '..');

/** The child's answer. */
export type ChildRoundReply = { readonly type: 'result'; readonly result: SubjectRoundResult; readonly details: readonly string[] } | { readonly type: 'error'; readonly message: string };

/** The last lines a child wrote (its logs are not the bench's output, but they explain a failure). */
class OutputTail {
  private readonly lines: string[] = [];

  add(chunk: Buffer): void {
    for (const line of chunk.toString('utf8').split('\n')) if (line.trim() !== '') this.lines.push(line);
    if (this.lines.length > 30) this.lines.splice(0, this.lines.length - 30);
  }

  toString(): string {
    return this.lines.length === 0 ? '' : `; its last output: ${this.lines.join(' | ').slice(-1500)}`;
  }
}

/**
 * Forks `script` (TypeScript, through ts-node), sends it `request` and waits
 * for its reply; kills it when it has not answered in `timeoutMs`.
 * @returns the round's figures and the child's details (versions, settings it read).
 */
export async function runChildRound(
  script: string,
  request: object,
  options: { readonly timeoutMs: number; readonly env?: Readonly<Record<string, string>> },
): Promise<{ readonly result: SubjectRoundResult; readonly details: readonly string[] }> {
  const child = fork(script, [], {
    cwd: ROOT,
    execArgv: ['-r', 'ts-node/register/transpile-only'],
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  const tail = new OutputTail();
  child.stdout?.on('data', (chunk: Buffer) => tail.add(chunk));
  child.stderr?.on('data', (chunk: Buffer) => tail.add(chunk));
  try {
    return await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer in ${options.timeoutMs / 1000} s${tail.toString()}`)), options.timeoutMs);
      child.once('message', (reply: ChildRoundReply) => {
        clearTimeout(timer);
        if (reply.type === 'result') resolve({ result: reply.result, details: reply.details });
        else reject(new Error(`${reply.message}${tail.toString()}`));
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`the round's process exited (code ${code}, signal ${signal}) before answering${tail.toString()}`));
      });
      child.once('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      child.send(request);
    });
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}

/** The child's side: runs `round` on the one request it gets, answers, and exits. */
export function serveOneRound<Request>(round: (request: Request) => Promise<{ result: SubjectRoundResult; details: readonly string[] }>): void {
  process.once('message', (request: Request) => {
    void (async () => {
      let reply: ChildRoundReply;
      try {
        reply = { type: 'result', ...(await round(request)) };
      } catch (error) {
        reply = { type: 'error', message: error instanceof Error ? (error.stack ?? error.message) : String(error) };
      }
      // Exit once the answer is out: a peer's SDK may keep handles open (pools, timers) that would keep the process up.
      process.send?.(reply, () => process.exit(reply.type === 'result' ? 0 : 1));
    })();
  });
  process.on('disconnect', () => process.exit(1));
}
