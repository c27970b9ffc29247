import { InvalidFieldError } from '@agent-ledger/domain';
import type { JsonObject } from '@agent-ledger/domain';
import type Ajv2020 from 'ajv/dist/2020';
import { createArgumentSchemaAjv } from './argument-schema';
import { TOOL_DATA_CLASSES, TOOL_NAME_PATTERN } from './tool-metadata';
import type { ToolDataClass, ToolMetadata } from './tool-metadata';

const KNOWN_FIELDS: readonly string[] = ['name', 'description', 'parameters', 'operationDeadlineSeconds', 'dataClass', 'requiresApproval'];

/** Why a key that looks like an effect is refused, wherever an effect might be slipped in as data. */
export const EFFECT_IS_CODE =
  "is not accepted: a tool's effect is a property of its code, not of its metadata or configuration. " +
  'Implement DeclaresToolEffect.getEffect() (from @agent-ledger/domain) on the tool class; a tool that declares nothing is READ_ONLY';

/** Whether a configuration key looks like an attempt to give an effect as data (`effect`, `toolEffects`, `sideEffect`...). */
export function isEffectLikeKey(key: string): boolean {
  return /effect/i.test(key);
}

/** How a tool is named in error messages: `@Tool(files.read)`, or `@Tool` while its name is not known to be valid. */
export function toolLabel(metadata: unknown): string {
  const name = typeof metadata === 'object' && metadata !== null ? (metadata as { name?: unknown }).name : undefined;
  return typeof name === 'string' && TOOL_NAME_PATTERN.test(name) ? `@Tool(${name})` : '@Tool';
}

let metaSchemaAjv: Ajv2020 | undefined;

/**
 * Checks a tool's metadata and returns a frozen, deep copy of it (so that a
 * later change to the object given cannot change what was checked).
 *
 * @throws {@link InvalidFieldError} naming the field, e.g.
 *   `@Tool(files.read).parameters must be an object schema (type: 'object')`;
 *   an `effect` key (or any key that looks like one) is refused with an
 *   explanation that effects are declared in code.
 */
export function validateToolMetadata(metadata: unknown): ToolMetadata {
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) {
    throw new InvalidFieldError('@Tool', 'takes one metadata object: { name, description, parameters, operationDeadlineSeconds?, dataClass?, requiresApproval? }');
  }
  const label = toolLabel(metadata);
  const fields = metadata as Record<string, unknown>;
  for (const key of Object.keys(fields)) {
    if (isEffectLikeKey(key)) {
      throw new InvalidFieldError(`${label}.${key}`, EFFECT_IS_CODE);
    }
    if (!KNOWN_FIELDS.includes(key)) {
      throw new InvalidFieldError(`${label}.${key}`, `is not a tool metadata field (known: ${KNOWN_FIELDS.join(', ')})`);
    }
  }

  const { name, description, parameters, operationDeadlineSeconds, dataClass, requiresApproval } = fields;
  if (typeof name !== 'string' || !TOOL_NAME_PATTERN.test(name)) {
    throw new InvalidFieldError(
      `${label}.name`,
      `must start with a letter and contain only letters, digits, '.', '_' or '-', at most 64 characters (got ${JSON.stringify(name) ?? String(name)})`,
    );
  }
  if (typeof description !== 'string' || description.trim().length === 0) {
    throw new InvalidFieldError(`${label}.description`, 'must be a non-empty string');
  }
  const schema = validateParameters(parameters, `${label}.parameters`);
  if (
    operationDeadlineSeconds !== undefined &&
    (typeof operationDeadlineSeconds !== 'number' || !Number.isFinite(operationDeadlineSeconds) || operationDeadlineSeconds <= 0)
  ) {
    throw new InvalidFieldError(`${label}.operationDeadlineSeconds`, `must be a positive number of seconds (got ${String(operationDeadlineSeconds)})`);
  }
  if (dataClass !== undefined && !(TOOL_DATA_CLASSES as readonly unknown[]).includes(dataClass)) {
    throw new InvalidFieldError(`${label}.dataClass`, `must be one of ${TOOL_DATA_CLASSES.join(', ')} (got ${String(dataClass)})`);
  }
  if (requiresApproval !== undefined && typeof requiresApproval !== 'boolean') {
    throw new InvalidFieldError(`${label}.requiresApproval`, `must be a boolean (got ${JSON.stringify(requiresApproval) ?? String(requiresApproval)})`);
  }

  return Object.freeze({
    name,
    description,
    parameters: schema,
    ...(operationDeadlineSeconds === undefined ? {} : { operationDeadlineSeconds: operationDeadlineSeconds as number }),
    ...(dataClass === undefined ? {} : { dataClass: dataClass as ToolDataClass }),
    ...(requiresApproval === undefined ? {} : { requiresApproval }),
  });
}

function validateParameters(parameters: unknown, field: string): JsonObject {
  if (typeof parameters !== 'object' || parameters === null || Array.isArray(parameters)) {
    throw new InvalidFieldError(field, "must be a JSON schema object with type: 'object'");
  }
  if ((parameters as { type?: unknown }).type !== 'object') {
    throw new InvalidFieldError(field, `must be an object schema (type: 'object'), since arguments are a JSON object (got type ${JSON.stringify((parameters as { type?: unknown }).type) ?? 'undefined'})`);
  }
  let copy: JsonObject;
  try {
    copy = JSON.parse(JSON.stringify(parameters)) as JsonObject;
  } catch (error) {
    throw new InvalidFieldError(field, `must be plain JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  metaSchemaAjv ??= createArgumentSchemaAjv();
  if (!metaSchemaAjv.validateSchema(copy)) {
    throw new InvalidFieldError(field, `is not a valid JSON schema: ${metaSchemaAjv.errorsText(metaSchemaAjv.errors, { dataVar: 'parameters' })}`);
  }
  return deepFreeze(copy);
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const child of Object.values(value)) {
      deepFreeze(child);
    }
    Object.freeze(value);
  }
  return value;
}
