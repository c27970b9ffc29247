import Ajv2020 from 'ajv/dist/2020';
import type { ErrorObject } from 'ajv/dist/2020';

/**
 * A new Ajv (JSON Schema draft 2020-12) as every tool schema is compiled:
 * `strict` (unknown keywords, unknown formats and loose types are schema
 * errors, found at registration rather than at the first call) and
 * `allErrors` (the model learns every problem with its arguments at once).
 * No defaults are filled in and no types coerced: arguments are validated,
 * never rewritten.
 */
export function createArgumentSchemaAjv(): Ajv2020 {
  return new Ajv2020({ strict: true, allErrors: true });
}

/**
 * A new Ajv for the argument schemas of tools whose code is not ours (an MCP
 * server's `inputSchema`): draft 2020-12, `allErrors`, but not strict and
 * without format checks, since such schemas are written for other
 * validators (the server validates its arguments again). Never used for the
 * product's or a plugin's tools.
 */
export function createExternalArgumentSchemaAjv(): Ajv2020 {
  return new Ajv2020({ strict: false, allErrors: true, validateFormats: false, logger: false });
}

/**
 * Ajv's errors for a tool's arguments as sentences that name the field, for
 * the model: `arguments.path must be string`, `arguments.path is required`,
 * `arguments.mode is not allowed`, `arguments.lines[2] must be integer`.
 */
export function describeArgumentErrors(errors: readonly ErrorObject[] | null | undefined): string[] {
  const sentences = (errors ?? []).map(describeArgumentError);
  return sentences.length > 0 ? [...new Set(sentences)] : ['arguments are invalid'];
}

function describeArgumentError(error: ErrorObject): string {
  const at = fieldPath(error.instancePath);
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'required' && typeof params['missingProperty'] === 'string') {
    return `${at}${propertyAccess(params['missingProperty'])} is required`;
  }
  if (error.keyword === 'additionalProperties' && typeof params['additionalProperty'] === 'string') {
    return `${at}${propertyAccess(params['additionalProperty'])} is not allowed`;
  }
  if (error.keyword === 'unevaluatedProperties' && typeof params['unevaluatedProperty'] === 'string') {
    return `${at}${propertyAccess(params['unevaluatedProperty'])} is not allowed`;
  }
  return `${at} ${error.message ?? 'is invalid'}`;
}

/** `/lines/2/text` (a JSON pointer) as `arguments.lines[2].text`. */
function fieldPath(instancePath: string): string {
  if (instancePath === '') {
    return 'arguments';
  }
  const segments = instancePath
    .slice(1)
    .split('/')
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
  return `arguments${segments.map((segment) => (/^(0|[1-9]\d*)$/.test(segment) ? `[${segment}]` : propertyAccess(segment))).join('')}`;
}

function propertyAccess(key: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}
