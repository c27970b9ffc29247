/**
 * A tiny schema builder: each response and request of the HTTP API is
 * declared once as a schema value, from which both its TypeScript type
 * ({@link Infer}) and its JSON Schema ({@link toJsonSchema}, OpenAPI 3.0
 * flavoured: `nullable: true`) are derived. No dependency.
 */

/** What a schema may say about itself in the generated JSON Schema. */
export interface SchemaMeta {
  /** The component name (`RunStatusRow`): with {@link JsonSchemaOptions.refs}, a nested use becomes a `$ref`. */
  readonly name?: string;
  readonly description?: string;
}

/** The structure of a schema, as {@link toJsonSchema} reads it. */
export type SchemaNode =
  | { readonly kind: 'string'; readonly pattern?: string; readonly minLength?: number; readonly maxLength?: number }
  | { readonly kind: 'integer'; readonly minimum?: number; readonly maximum?: number }
  | { readonly kind: 'number'; readonly minimum?: number; readonly maximum?: number }
  | { readonly kind: 'boolean' }
  | { readonly kind: 'enum'; readonly values: readonly string[] }
  | { readonly kind: 'literal'; readonly value: string | number | boolean }
  | { readonly kind: 'array'; readonly items: Schema<unknown> }
  | { readonly kind: 'object'; readonly shape: Readonly<Record<string, Schema<unknown>>> }
  | { readonly kind: 'record'; readonly values: Schema<unknown> }
  | { readonly kind: 'nullable'; readonly inner: Schema<unknown> }
  | { readonly kind: 'optional'; readonly inner: Schema<unknown> }
  | { readonly kind: 'json' }
  | { readonly kind: 'unknown' };

/** A schema of values of type `T`. */
export class Schema<T> {
  /** The type it describes (type-level only: never set at run time). */
  declare readonly _output: T;

  constructor(
    readonly node: SchemaNode,
    readonly meta: SchemaMeta = {},
  ) {}

  /** The same schema with a description. */
  describe(description: string): this {
    return this.with({ description });
  }

  /** The same schema under a component name (`RunStatusRow`). */
  named(name: string): this {
    return this.with({ name });
  }

  protected with(meta: SchemaMeta): this {
    const copy = Object.create(Object.getPrototypeOf(this) as object) as this;
    Object.assign(copy, this, { meta: { ...this.meta, ...meta } });
    return copy;
  }
}

/** An optional object property (absent, never `null`). */
export class OptionalSchema<T> extends Schema<T | undefined> {
  /** Marks the property optional in {@link Infer} of its object. */
  declare readonly _optional: true;
}

/** The type a schema describes. */
export type Infer<S> = S extends Schema<infer T> ? T : never;

type Shape = Readonly<Record<string, Schema<unknown>>>;
type Simplify<T> = { [K in keyof T]: T[K] } & {};

/**
 * The type of an object schema's shape: each property readonly, the optional
 * ones with `?`. The keys are remapped over `keyof S` (never a union of keys
 * computed apart), so the properties keep the shape's order in every program:
 * the emitted declarations, and the API report, do not change from one build
 * to the next.
 */
export type InferShape<S extends Shape> = Simplify<
  { readonly [K in keyof S as S[K] extends OptionalSchema<unknown> ? never : K]: Infer<S[K]> } & {
    readonly [K in keyof S as S[K] extends OptionalSchema<unknown> ? K : never]?: Exclude<Infer<S[K]>, undefined>;
  }
>;

/** Any JSON value. */
export type JsonValue = string | number | boolean | null | readonly JsonValue[] | { readonly [key: string]: JsonValue };

type Bounds = { readonly minimum?: number; readonly maximum?: number };

/** The schema builders. */
export const s = {
  string(options: { readonly pattern?: string; readonly minLength?: number; readonly maxLength?: number } = {}): Schema<string> {
    return new Schema({ kind: 'string', ...options });
  },
  integer(options: Bounds = {}): Schema<number> {
    return new Schema({ kind: 'integer', ...options });
  },
  number(options: Bounds = {}): Schema<number> {
    return new Schema({ kind: 'number', ...options });
  },
  boolean(): Schema<boolean> {
    return new Schema({ kind: 'boolean' });
  },
  /** One of the strings listed. */
  enum<const V extends readonly string[]>(values: V): Schema<V[number]> {
    return new Schema({ kind: 'enum', values: [...values] });
  },
  /** Exactly this value. */
  literal<const V extends string | number | boolean>(value: V): Schema<V> {
    return new Schema({ kind: 'literal', value });
  },
  array<T>(items: Schema<T>): Schema<readonly T[]> {
    return new Schema({ kind: 'array', items });
  },
  object<S extends Shape>(shape: S): Schema<InferShape<S>> {
    return new Schema({ kind: 'object', shape });
  },
  /** An object whose keys are free and whose values all have one schema. */
  record<T>(values: Schema<T>): Schema<Readonly<Record<string, T>>> {
    return new Schema({ kind: 'record', values });
  },
  /** The value, or `null`. */
  nullable<T>(inner: Schema<T>): Schema<T | null> {
    return new Schema({ kind: 'nullable', inner });
  },
  /** An object property that may be absent. */
  optional<T>(inner: Schema<T>): OptionalSchema<T> {
    return new OptionalSchema({ kind: 'optional', inner });
  },
  /** Any JSON value, `null` included. */
  json(): Schema<JsonValue> {
    return new Schema({ kind: 'json' });
  },
  /** Anything (described elsewhere). */
  unknown(): Schema<unknown> {
    return new Schema({ kind: 'unknown' });
  },
};

/** A JSON Schema object (OpenAPI 3.0's Schema Object). */
export type JsonSchema = { readonly [keyword: string]: unknown };

/** How {@link toJsonSchema} writes a schema. */
export interface JsonSchemaOptions {
  /**
   * Named schemas nested in this one become `{ $ref: refs(name) }`
   * (e.g. `(name) => '#/components/schemas/' + name`); default: every schema inlined.
   */
  readonly refs?: (name: string) => string;
  /**
   * Objects refuse properties they do not declare (`additionalProperties: false`):
   * for a test that an answer has no undocumented field. Default: open objects.
   */
  readonly closed?: boolean;
}

/**
 * The JSON Schema of a schema, in the OpenAPI 3.0 dialect: `nullable: true`
 * (with `null` among an enum's values), no `type` arrays. The schema itself
 * is always written out; the named schemas inside it are `$ref`s when
 * `options.refs` is given.
 */
export function toJsonSchema(schema: Schema<unknown>, options: JsonSchemaOptions = {}): JsonSchema {
  return withMeta(schema, nodeSchema(schema.node, options));
}

function nested(schema: Schema<unknown>, options: JsonSchemaOptions): JsonSchema {
  if (options.refs !== undefined && schema.meta.name !== undefined) return { $ref: options.refs(schema.meta.name) };
  return toJsonSchema(schema, options);
}

function withMeta(schema: Schema<unknown>, json: JsonSchema): JsonSchema {
  return schema.meta.description === undefined ? json : { ...json, description: schema.meta.description };
}

function nodeSchema(node: SchemaNode, options: JsonSchemaOptions): JsonSchema {
  switch (node.kind) {
    case 'string':
    case 'integer':
    case 'number': {
      const { kind, ...rest } = node;
      return { type: kind, ...rest };
    }
    case 'boolean':
      return { type: 'boolean' };
    case 'enum':
      return { type: 'string', enum: [...node.values] };
    case 'literal':
      return { type: typeof node.value === 'number' ? (Number.isInteger(node.value) ? 'integer' : 'number') : typeof node.value, enum: [node.value] };
    case 'array':
      return { type: 'array', items: nested(node.items, options) };
    case 'object': {
      const properties: Record<string, JsonSchema> = {};
      const required: string[] = [];
      for (const [key, value] of Object.entries(node.shape)) {
        properties[key] = nested(value, options);
        if (value.node.kind !== 'optional') required.push(key);
      }
      return { type: 'object', properties, ...(required.length === 0 ? {} : { required }), ...(options.closed === true ? { additionalProperties: false } : {}) };
    }
    case 'record':
      return { type: 'object', additionalProperties: nested(node.values, options) };
    case 'nullable': {
      const inner = nested(node.inner, options);
      // OpenAPI 3.0: `nullable` does not reach through a $ref, nor add null to an enum.
      if ('$ref' in inner) return { allOf: [inner], nullable: true };
      if (Array.isArray(inner.enum)) return { ...inner, enum: [...(inner.enum as unknown[]), null], nullable: true };
      if (Object.keys(inner).filter((key) => key !== 'description').length === 0) return inner;
      return { ...inner, nullable: true };
    }
    case 'optional':
      return nested(node.inner, options);
    case 'json':
      return {};
    case 'unknown':
      return {};
  }
}

/**
 * The named schemas reachable from `roots`, each once, by name: what an
 * OpenAPI document puts under `components.schemas`, with nested named
 * schemas as `$ref`s to `#/components/schemas/<name>`.
 *
 * @throws Error when two different schemas share a name
 */
export function toComponentSchemas(roots: Iterable<Schema<unknown>>, options: Pick<JsonSchemaOptions, 'closed'> = {}): Record<string, JsonSchema> {
  const found = new Map<string, Schema<unknown>>();
  const visit = (schema: Schema<unknown>): void => {
    const name = schema.meta.name;
    if (name !== undefined) {
      const known = found.get(name);
      if (known !== undefined) {
        if (known.node !== schema.node) throw new Error(`Two different schemas are named "${name}"`);
        return;
      }
      found.set(name, schema);
    }
    for (const child of childrenOf(schema.node)) visit(child);
  };
  for (const root of roots) visit(root);
  const refs = (name: string): string => `#/components/schemas/${name}`;
  const components: Record<string, JsonSchema> = {};
  for (const [name, schema] of [...found].sort(([a], [b]) => a.localeCompare(b))) components[name] = toJsonSchema(schema, { ...options, refs });
  return components;
}

function childrenOf(node: SchemaNode): readonly Schema<unknown>[] {
  switch (node.kind) {
    case 'array':
      return [node.items];
    case 'object':
      return Object.values(node.shape);
    case 'record':
      return [node.values];
    case 'nullable':
    case 'optional':
      return [node.inner];
    default:
      return [];
  }
}
