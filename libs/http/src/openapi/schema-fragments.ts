import type { SchemaObject } from '@nestjs/swagger';

/**
 * Schema fragments shared by the response documentation classes (fresh
 * objects each time: `@nestjs/swagger` may complete the metadata it is given).
 */

/** A nullable enum: OpenAPI 3.0 does not add `null` to an `enum` by `nullable: true`, so `null` is listed among the values. */
export function nullableEnum<const V extends string>(values: Readonly<Record<string, V>> | readonly V[]): { enum: (V | null)[]; nullable: true } {
  const list: readonly V[] = Array.isArray(values) ? values : Object.values(values);
  return { enum: [...list, null], nullable: true };
}

/** Any JSON value, `null` included (a run's input). */
export function jsonValueSchema(): { oneOf: SchemaObject[]; nullable: true } {
  return {
    oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }, { type: 'object', additionalProperties: true }, { type: 'array', items: {} }],
    nullable: true,
  };
}
