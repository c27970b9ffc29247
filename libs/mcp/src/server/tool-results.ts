import { AgentLedgerApiError, AgentLedgerConnectionError } from '@agent-ledger/client';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import type { LedgerErrorBody } from './ledger-operation-error';
import { LedgerOperationError } from './ledger-operation-error';

/**
 * A tool's answer: the route's JSON as `structuredContent`, and the same
 * JSON as text (for the clients that read text only).
 */
export function answerResult(answer: unknown): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(answer) }], structuredContent: answer as Record<string, unknown> };
}

/**
 * A tool's refusal or failure (`isError`): first a line for people and
 * models, `<CODE>: <message>`, then the error body as JSON, which is also
 * the `structuredContent`.
 */
export function errorResult(body: LedgerErrorBody): CallToolResult {
  return {
    isError: true,
    content: [
      { type: 'text', text: `${body.code}: ${body.message}` },
      { type: 'text', text: JSON.stringify(body) },
    ],
    structuredContent: { ...body },
  };
}

/**
 * The error body of what a {@link LedgerOperations} call rejected with: the
 * ledger's own body for its refusals and failures, `SERVICE_UNREACHABLE`
 * when the service did not answer, and `INTERNAL_ERROR` (told to `onFault`,
 * never shown) for anything else.
 */
export function errorBodyOf(error: unknown, onFault: (error: unknown) => void): LedgerErrorBody {
  if (error instanceof LedgerOperationError) return error.body;
  if (error instanceof AgentLedgerApiError) return error.body;
  if (error instanceof AgentLedgerConnectionError) return { code: 'SERVICE_UNREACHABLE', message: error.message, reason: error.reason };
  onFault(error);
  return { code: 'INTERNAL_ERROR', message: 'Internal error (logged by the server)' };
}

/** `INVALID_FIELD` for arguments the tool's schema refuses, naming the first field (`decision`, `round`...) and every issue. */
export function invalidArgumentsBody(tool: string, error: z.ZodError): LedgerErrorBody {
  const issues = error.issues.map((issue) => {
    const field = issue.path.length === 0 ? 'arguments' : issue.path.map(String).join('.');
    const unknownKeys = issue.code === 'unrecognized_keys' ? issue.keys : [];
    if (unknownKeys.length > 0) {
      const at = issue.path.length === 0 ? '' : `${field}.`;
      return { field: `${at}${unknownKeys[0] as string}`, rule: 'unknownField', message: `${at}${unknownKeys.join(', ')}: not an argument of ${tool}` };
    }
    return { field, rule: issue.code, message: `${field}: ${issue.message}` };
  });
  const first = issues[0] ?? { field: 'arguments', rule: 'invalid', message: 'arguments: invalid' };
  return { code: 'INVALID_FIELD', message: `Invalid arguments for ${tool}: ${first.message}`, field: first.field, rule: first.rule, issues };
}
