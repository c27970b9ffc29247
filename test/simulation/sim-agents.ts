import type { TestAgent } from '@agent-ledger/runtime/testing';

/*
 * The agents of the simulation: scripted (deterministic, no I/O), offering
 * the harness's test tools, one per effect class (`test.read` READ_ONLY,
 * `test.put` IDEMPOTENT_WRITE, `test.append` NON_IDEMPOTENT_WRITE), plus
 * `test.ask` (asks the user for input) and `test.guarded` (its code requires
 * approval). Between them they reach every path of the step loop: reads,
 * both write classes pre-approved, writes waiting for a person (denial ending
 * the run or told to the model), input, a tool requiring approval, a tool
 * not offered, MAX_ITERATIONS, and a model that is always down (retries
 * until RETRIES_EXHAUSTED).
 */

const call = (tool: string, value: string) => ({ tool, arguments: { value } });
const ALL = ['test.read', 'test.put', 'test.append'];

/** The first is where fast-check shrinks an agent to: the writer, which reaches the most rules. */
export const SIM_AGENTS: readonly TestAgent[] = [
  // Both write classes, pre-approved: fenced, fail-closed audit, at most once for the append.
  {
    name: 'writer',
    script: [{ toolCalls: [call('test.read', 'a'), call('test.put', 'p')] }, { toolCalls: [call('test.append', 'x')] }, { final: 'written' }],
  },
  // Reads only: its audit failures are fail-soft.
  { name: 'reader', script: [{ toolCalls: [call('test.read', 'a'), call('test.read', 'b')] }, { toolCalls: [call('test.read', 'c')] }, { final: 'read' }] },
  // Nothing pre-approved: the round waits for a person; a denial ends the run.
  { name: 'careful', script: [{ toolCalls: [call('test.read', 'a'), call('test.append', 'b')] }, { final: 'done' }], approvals: { preApproved: [], onDenial: 'endRun' } },
  // The put is pre-approved, the append is not; a denial is told to the model, which goes on.
  {
    name: 'told',
    script: [{ toolCalls: [call('test.put', 'p')] }, { toolCalls: [call('test.append', 'q'), call('test.read', 'r')] }, { final: 'told' }],
    approvals: { preApproved: ['test.put'], onDenial: 'tellModel' },
  },
  // Asks the user, then writes (pre-approved).
  { name: 'asker', script: [{ toolCalls: [call('test.ask', 'Which one?')] }, { toolCalls: [call('test.put', 'p')] }, { final: 'asked' }], tools: ['test.ask', 'test.put'] },
  // A read-only tool whose code asks approval before every call, then an append (pre-approved).
  {
    name: 'guarded',
    script: [{ toolCalls: [call('test.guarded', 'g'), call('test.append', 'a')] }, { final: 'guarded' }],
    tools: ['test.guarded', 'test.append'],
    approvals: { preApproved: ['test.append'] },
  },
  // Calls a tool it is not offered (refused, recorded as a NON_IDEMPOTENT_WRITE), then loops past its 2 rounds: MAX_ITERATIONS.
  {
    name: 'looper',
    script: [{ toolCalls: [call('test.put', 'p'), call('test.append', 'nope')] }, { toolCalls: [call('test.put', 'p2')] }, { final: 'never reached' }],
    tools: ['test.read', 'test.put'],
    maxIterations: 2,
  },
  // Its model is always down (HTTP 503, retryable): retried with backoff until the budget is spent, RETRIES_EXHAUSTED.
  { name: 'unreachable', script: [{ final: 'never answered' }] },
];

/** Agents whose model always fails (the world's provider throws for them). */
export const MODEL_DOWN_AGENTS: ReadonlySet<string> = new Set(['unreachable']);

/** The names of {@link SIM_AGENTS}. */
export const SIM_AGENT_NAMES: readonly string[] = SIM_AGENTS.map((a) => a.name);

/** The tools offered to an agent (the harness's default when it lists none). */
export function toolsOf(agent: TestAgent): readonly string[] {
  return agent.tools ?? ALL;
}
