/**
 * What the model providers' tests send and how they catch a failure: one
 * round of a file clerk's run, with an earlier tool call and its result, and
 * two tools offered.
 */
import type { ModelRequest } from '@agent-ledger/runtime';

/** A round of `file-clerk` after one `files.read` (step `run-1/r0/t0`), offering `files.read` and `files.write`. */
export function clerkRequest(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    runId: 'run-1',
    agent: 'file-clerk',
    round: 1,
    messages: [
      { role: 'system', content: 'You are a clerk.' },
      { role: 'user', content: 'Copy in.txt to out.txt' },
      { role: 'assistant', content: null, toolCalls: [{ id: 'run-1/r0/t0', toolName: 'files.read', arguments: { path: 'in.txt' } }] },
      { role: 'tool', toolCallId: 'run-1/r0/t0', toolName: 'files.read', content: { text: 'hello' }, isError: false },
    ],
    tools: [
      { name: 'files.read', description: 'Reads a file', parameters: { type: 'object', properties: { path: { type: 'string' } } } },
      { name: 'files.write', description: 'Writes a file', parameters: { type: 'object' } },
    ],
    signal: new AbortController().signal,
    ...overrides,
  };
}

/** What `promise` rejected with; fails the test when it resolves. */
export async function failureOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('the call succeeded');
}
