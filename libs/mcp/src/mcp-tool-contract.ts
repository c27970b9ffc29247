import { createHash } from 'node:crypto';
import type { JsonObject, JsonValue, ToolEffectHints } from '@agent-ledger/domain';

/** A tool as an MCP server lists it (the SDK's `Tool`, as far as agent-ledger reads it). */
export interface McpListedTool {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly inputSchema: Readonly<Record<string, unknown>>;
  readonly outputSchema?: Readonly<Record<string, unknown>>;
  readonly annotations?: Readonly<Record<string, unknown>>;
  readonly execution?: { readonly taskSupport?: string };
}

/**
 * What a bound tool's calls rely on, as listed at one time: its input schema,
 * its three effect hints, its output schema and its task support, and a
 * fingerprint of the four (SHA-256 of their canonical JSON, keys sorted). A
 * tool whose fingerprint changed is no longer the tool its binding was
 * checked against. The description is kept apart: a change of it alone is
 * only logged.
 */
export interface McpToolContract {
  readonly fingerprint: string;
  readonly inputSchema: JsonValue;
  readonly hints: ToolEffectHints;
  readonly outputSchema: JsonValue;
  readonly taskSupport: string | null;
  readonly description: string | null;
}

/** The contract of a listed tool. */
export function contractOf(tool: McpListedTool): McpToolContract {
  const annotations = tool.annotations ?? {};
  const hints: { readOnlyHint?: boolean; idempotentHint?: boolean; destructiveHint?: boolean } = {};
  for (const key of ['readOnlyHint', 'idempotentHint', 'destructiveHint'] as const) {
    if (typeof annotations[key] === 'boolean') hints[key] = annotations[key];
  }
  const inputSchema = canonical(tool.inputSchema);
  const outputSchema = tool.outputSchema === undefined ? null : canonical(tool.outputSchema);
  const taskSupport = typeof tool.execution?.taskSupport === 'string' ? tool.execution.taskSupport : null;
  const fingerprint = createHash('sha256')
    .update(JSON.stringify({ inputSchema, hints: canonical(hints), outputSchema, taskSupport }))
    .digest('hex');
  return { fingerprint, inputSchema, hints, outputSchema, taskSupport, description: tool.description ?? tool.title ?? null };
}

/**
 * What differs between a tool's contract when its binding was checked and
 * now, in words (`input schema changed`, `hints changed: idempotentHint true -> false`,
 * `output schema changed`, `task support changed: none -> required`); empty
 * when the fingerprints match.
 */
export function contractChanges(before: McpToolContract, after: McpToolContract): string[] {
  if (before.fingerprint === after.fingerprint) return [];
  const changes: string[] = [];
  if (JSON.stringify(before.inputSchema) !== JSON.stringify(after.inputSchema)) changes.push('input schema changed');
  const hints = (['readOnlyHint', 'idempotentHint', 'destructiveHint'] as const)
    .filter((key) => before.hints[key] !== after.hints[key])
    .map((key) => `${key} ${String(before.hints[key] ?? 'unset')} -> ${String(after.hints[key] ?? 'unset')}`);
  if (hints.length > 0) changes.push(`hints changed: ${hints.join(', ')}`);
  if (JSON.stringify(before.outputSchema) !== JSON.stringify(after.outputSchema)) changes.push('output schema changed');
  if (before.taskSupport !== after.taskSupport) changes.push(`task support changed: ${before.taskSupport ?? 'none'} -> ${after.taskSupport ?? 'none'}`);
  return changes;
}

/**
 * A tool's input schema as agent-ledger offers it to a model and validates
 * arguments with: the server's, without a top-level `$schema` (the SDK's
 * servers name draft-07, which the registry's Ajv 2020 does not know).
 */
export function parametersOf(tool: McpListedTool): JsonObject {
  const { $schema: _dialect, ...rest } = canonical(tool.inputSchema) as JsonObject;
  return rest;
}

/** A JSON copy with the keys of every object sorted. */
function canonical(value: unknown): JsonValue {
  if (Array.isArray(value)) return value.map(canonical);
  if (typeof value === 'object' && value !== null) {
    const sorted: Record<string, JsonValue> = {};
    for (const key of Object.keys(value).sort()) {
      const item = (value as Record<string, unknown>)[key];
      if (item !== undefined) sorted[key] = canonical(item);
    }
    return sorted;
  }
  return value === undefined ? null : (value as JsonValue);
}
