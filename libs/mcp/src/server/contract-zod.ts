import type { Schema } from '@agent-ledger/client';
import { z } from 'zod';

/**
 * The zod schema of a schema of the HTTP API's contract
 * (`@agent-ledger/client`'s request bodies and queries): the MCP tools take
 * the arguments the routes take, checked by the same limits, from the one
 * declaration of each (the SDK's `McpServer` takes zod, not JSON Schema).
 * Descriptions are kept; `json` is any JSON value (`null` included, never
 * absent).
 */
export function zodOfContract(schema: Schema<unknown>): z.ZodType {
  const converted = bare(schema);
  const description = schema.meta.description;
  return description === undefined ? converted : converted.describe(description);
}

/** The properties of an object schema of the contract, as a zod shape. */
export function zodShapeOfContract(schema: Schema<unknown>): Record<string, z.ZodType> {
  if (schema.node.kind !== 'object') throw new Error(`zodShapeOfContract takes an object schema (got ${schema.node.kind})`);
  return Object.fromEntries(Object.entries(schema.node.shape).map(([key, property]) => [key, zodOfContract(property)]));
}

function bare(schema: Schema<unknown>): z.ZodType {
  const node = schema.node;
  switch (node.kind) {
    case 'string': {
      let string = z.string();
      if (node.minLength !== undefined) string = string.min(node.minLength);
      if (node.maxLength !== undefined) string = string.max(node.maxLength);
      if (node.pattern !== undefined) string = string.regex(new RegExp(node.pattern));
      return string;
    }
    case 'integer':
    case 'number': {
      let number = node.kind === 'integer' ? z.number().int() : z.number();
      if (node.minimum !== undefined) number = number.min(node.minimum);
      if (node.maximum !== undefined) number = number.max(node.maximum);
      return number;
    }
    case 'boolean':
      return z.boolean();
    case 'enum':
      return z.enum(node.values as [string, ...string[]]);
    case 'literal':
      return z.literal(node.value);
    case 'array':
      return z.array(zodOfContract(node.items));
    case 'object':
      return z.strictObject(zodShapeOfContract(schema));
    case 'record':
      return z.record(z.string(), zodOfContract(node.values));
    case 'nullable':
      return zodOfContract(node.inner).nullable();
    case 'optional':
      return zodOfContract(node.inner).optional();
    case 'json':
      return z.json();
    case 'unknown':
      return z.unknown();
  }
}
