import { createHash } from 'node:crypto';
import type { JsonObject, JsonValue } from '@agent-ledger/domain';
import { McpToolError } from './mcp-errors';

/** What an MCP server answered to `tools/call` (the SDK's `CallToolResult`, as far as it is recorded). */
export interface McpCallResult {
  readonly content?: readonly unknown[];
  readonly structuredContent?: unknown;
  readonly isError?: boolean;
}

/**
 * Turns a `tools/call` result into the step's recorded result (the JSON of
 * `ToolExecuted.result`, which the model sees too):
 *
 * ```jsonc
 * { "content": [ { "type": "text", "text": "..." },                       // kept whole
 *                { "type": "image", "mimeType": "image/png", "data": "..." },   // at most maxInlineBytes: kept
 *                { "type": "image", "mimeType": "image/png", "bytes": 70000, "sha256": "...", "omitted": true },   // larger: by size and digest
 *                { "type": "resource", "uri": "...", "mimeType": "...", "bytes": 70000, "sha256": "...", "omitted": true },
 *                { "type": "resource_link", "uri": "...", "name": "..." } ],   // a reference already
 *   "structuredContent": { ... } | null,
 *   "isError": false }
 * ```
 *
 * `bytes` is the decoded size (base64 `data` and `blob`; a resource's text
 * in UTF-8), `sha256` the digest of those bytes.
 *
 * @throws McpToolError (`MCP_TOOL_ERROR`, `clientError`) for an `isError`
 *   result, its text blocks joined as the message (capped at 4,000 characters).
 */
export function recordMcpResult(
  result: McpCallResult,
  toolName: string,
  { maxInlineBytes, maxResultBytes, server }: { readonly maxInlineBytes: number; readonly maxResultBytes: number; readonly server: string },
): JsonObject {
  const content = Array.isArray(result.content) ? result.content : [];
  if (result.isError === true) {
    const text = content
      .filter((block): block is { type: 'text'; text: string } => isObject(block) && block.type === 'text' && typeof block.text === 'string')
      .map((block) => block.text)
      .join('\n');
    throw new McpToolError(toolName, 'MCP_TOOL_ERROR', text === '' ? `${toolName} answered with an error result without text` : text);
  }
  const recorded: JsonObject = {
    content: content.map((block) => recordBlock(block, maxInlineBytes)),
    structuredContent: result.structuredContent === undefined ? null : toJson(result.structuredContent),
    isError: false,
  };
  const size = Buffer.byteLength(JSON.stringify(recorded));
  if (size > maxResultBytes) {
    throw new McpToolError(
      toolName,
      'MCP_RESULT_TOO_LARGE',
      `MCP server ${server} answered ${toolName} with a result of ${size} bytes, over its binding's maxResultBytes (${maxResultBytes}): nothing of it was recorded (a write was applied by the server all the same); ask for less`,
    );
  }
  return recorded;
}

function recordBlock(block: unknown, maxInlineBytes: number): JsonValue {
  if (!isObject(block)) return toJson(block);
  switch (block.type) {
    case 'text':
      return { type: 'text', text: String(block.text ?? '') };
    case 'image':
    case 'audio': {
      const data = typeof block.data === 'string' ? block.data : '';
      const bytes = Buffer.from(data, 'base64');
      const head = { type: block.type, mimeType: stringOr(block.mimeType) };
      return bytes.length > maxInlineBytes ? { ...head, bytes: bytes.length, sha256: sha256(bytes), omitted: true } : { ...head, data };
    }
    case 'resource': {
      const resource = isObject(block.resource) ? block.resource : {};
      const head = { type: 'resource', uri: stringOr(resource.uri), mimeType: stringOr(resource.mimeType) };
      const text = typeof resource.text === 'string' ? resource.text : undefined;
      const blob = typeof resource.blob === 'string' ? resource.blob : '';
      const bytes = text === undefined ? Buffer.from(blob, 'base64') : Buffer.from(text, 'utf8');
      if (bytes.length > maxInlineBytes) return { ...head, bytes: bytes.length, sha256: sha256(bytes), omitted: true };
      return text === undefined ? { ...head, blob } : { ...head, text };
    }
    case 'resource_link': {
      return {
        type: 'resource_link',
        uri: stringOr(block.uri),
        name: stringOr(block.name),
        ...(typeof block.mimeType === 'string' ? { mimeType: block.mimeType } : {}),
        ...(typeof block.description === 'string' ? { description: block.description } : {}),
      };
    }
    default: {
      // A block of a later protocol revision: kept when small, by size and digest otherwise.
      const json = JSON.stringify(block);
      const bytes = Buffer.from(json, 'utf8');
      return bytes.length > maxInlineBytes ? { type: String(block.type), bytes: bytes.length, sha256: sha256(bytes), omitted: true } : toJson(block);
    }
  }
}

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

function stringOr(value: unknown): JsonValue {
  return typeof value === 'string' ? value : null;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A plain JSON copy (drops `undefined`, turns anything exotic into what JSON.stringify makes of it). */
function toJson(value: unknown): JsonValue {
  const text = JSON.stringify(value);
  return text === undefined ? null : (JSON.parse(text) as JsonValue);
}
