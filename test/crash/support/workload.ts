/**
 * The crash scenarios' workload: scripted agents whose tools are the
 * `ledger.*` test tools (every effect class), a plan of queued and
 * interactive runs, their submission over HTTP through crashes of the
 * service, and an operator that approves what waits for approval.
 */
import type { SubmittedRun } from './invariants';
import type { Rng } from './rng';

/**
 * The agents (a scripted model; the writes pre-approved, but for `approver`,
 * whose non-idempotent write waits for the operator):
 * - `mixer`: a read, an idempotent write, a non-idempotent write, one per round;
 * - `batcher`: two writes in one round, then a read and a write;
 * - `reader`: reads only;
 * - `approver`: an idempotent write (pre-approved), then a non-idempotent one that waits for approval.
 */
export function crashAgentsYaml(): string {
  const call = (tool: string, value: string, holdMs: number) => `{ tool: ${tool}, arguments: { value: ${value}, holdMs: ${holdMs} } }`;
  const tools = '[ledger.read, ledger.put, ledger.append]';
  return `agents:
  - name: mixer
    instructions: Read, put, append.
    tools: ${tools}
    approvals: { preApproved: [ledger.put, ledger.append] }
    maxIterations: 6
    provider:
      type: scripted
      script:
        - toolCalls: [${call('ledger.read', 'm0', 10)}]
        - toolCalls: [${call('ledger.put', 'm1', 30)}]
        - toolCalls: [${call('ledger.append', 'm2', 30)}]
        - final: mixed
  - name: batcher
    instructions: Two writes in one round, then a read and a write.
    tools: ${tools}
    approvals: { preApproved: [ledger.put, ledger.append] }
    maxIterations: 6
    provider:
      type: scripted
      script:
        - toolCalls: [${call('ledger.put', 'b0', 20)}, ${call('ledger.append', 'b1', 20)}]
        - toolCalls: [${call('ledger.read', 'b2', 10)}, ${call('ledger.put', 'b3', 20)}]
        - final: batched
  - name: reader
    instructions: Read twice.
    tools: [ledger.read]
    maxIterations: 4
    provider:
      type: scripted
      script:
        - toolCalls: [${call('ledger.read', 'r0', 20)}, ${call('ledger.read', 'r1', 20)}]
        - final: read
  - name: approver
    instructions: Put, then append once a person approves.
    tools: ${tools}
    approvals: { preApproved: [ledger.put], onDenial: endRun }
    maxIterations: 5
    provider:
      type: scripted
      script:
        - toolCalls: [${call('ledger.put', 'a0', 20)}]
        - toolCalls: [${call('ledger.append', 'a1', 20)}]
        - final: appended after approval
`;
}

const QUEUED_AGENTS = ['mixer', 'batcher', 'reader', 'mixer', 'approver', 'batcher'];
const INTERACTIVE_AGENTS = ['mixer', 'batcher', 'reader', 'approver'];

/** The runs of a scenario, in the order they are submitted; the queued ones cycle through `queuedAgents`, the interactive ones through `interactiveAgents`. */
export function planRuns(
  name: string,
  rng: Rng,
  queued: number,
  interactive: number,
  queuedAgents: readonly string[] = QUEUED_AGENTS,
  interactiveAgents: readonly string[] = INTERACTIVE_AGENTS,
): SubmittedRun[] {
  const prefix = name.replace(/[^A-Za-z0-9]/g, '').slice(0, 24);
  const runs: SubmittedRun[] = [];
  for (let i = 0; i < queued; i += 1) runs.push({ runId: `${prefix}-q${i}`, agent: queuedAgents[i % queuedAgents.length] as string, mode: 'queued' });
  for (let i = 0; i < interactive; i += 1) runs.push({ runId: `${prefix}-i${i}`, agent: interactiveAgents[i % interactiveAgents.length] as string, mode: 'interactive' });
  return rng.shuffle(runs);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** How the workload reaches the service, whichever incarnation is up. */
export interface ServiceAccess {
  /** The base URL of the service once it is up (waits while it restarts). */
  baseUrl(): Promise<string>;
}

/**
 * Submits one run, again and again through the service's crashes, until the
 * service answered for it: 202 (queued), 200 (interactive, settled or
 * waiting), or 409 `RUN_ALREADY_EXISTS` (an earlier try was recorded before
 * the service died). Returns how it ended.
 */
export async function submitRun(service: ServiceAccess, run: SubmittedRun, deadline: number): Promise<string> {
  let last = '';
  while (Date.now() < deadline) {
    const base = await service.baseUrl();
    try {
      const response = await fetch(`${base}/runs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ agent: run.agent, input: { task: run.runId }, mode: run.mode, runId: run.runId }),
        signal: AbortSignal.timeout(120_000),
      });
      const text = await response.text();
      if (response.status === 202 || response.status === 200) return response.status === 202 ? 'queued' : `interactive ${(JSON.parse(text) as { segment?: string }).segment ?? '?'}`;
      if (response.status === 409 && text.includes('RUN_ALREADY_EXISTS')) return 'existed';
      last = `${response.status} ${text.slice(0, 300)}`;
      if (response.status < 500) throw new Error(`POST /runs for ${run.runId} was refused: ${last}`);
    } catch (error) {
      if (error instanceof Error && error.message.startsWith('POST /runs')) throw error;
      last = error instanceof Error ? `${error.message} ${(error.cause as Error | undefined)?.message ?? ''}` : String(error);
    }
    await sleep(150);
  }
  throw new Error(`POST /runs for ${run.runId} got no answer before the deadline (last: ${last})`);
}

/** What the operator answers to a run's pending approval. */
export type OperatorDecision = 'approve' | 'deny';

/**
 * The operator: decides every pending approval (approves it, unless `decide`
 * says otherwise for its run), every `intervalMs`, until `stop` fires.
 * Errors (the service restarting, a decision someone else made first) are
 * ignored: the next pass tries again. Returns the number of approvals it
 * decided.
 */
export async function approveWhatWaits(service: ServiceAccess, stop: AbortSignal, intervalMs = 300, decide: (runId: string) => OperatorDecision = () => 'approve'): Promise<number> {
  let decided = 0;
  const stopped = new Promise<never>((_, reject) => stop.addEventListener('abort', () => reject(new Error('stopped')), { once: true }));
  stopped.catch(() => undefined);
  while (!stop.aborted) {
    try {
      const base = await Promise.race([service.baseUrl(), stopped]);
      const response = await fetch(`${base}/approvals?state=pending&limit=100`, { signal: AbortSignal.timeout(10_000) });
      if (response.status === 200) {
        const page = (await response.json()) as { approvals: Array<{ runId: string; round: number }> };
        for (const approval of page.approvals) {
          const decision = await fetch(`${base}/runs/${encodeURIComponent(approval.runId)}/approval`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ decision: decide(approval.runId), reason: 'crash test operator', round: approval.round }),
            signal: AbortSignal.timeout(10_000),
          });
          if (decision.status === 200) decided += 1;
          await decision.text();
        }
      }
    } catch {
      // The service is restarting, or the pass raced a decision: try again on the next pass.
    }
    await sleep(intervalMs);
  }
  return decided;
}
