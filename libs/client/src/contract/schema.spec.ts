import type { Infer, JsonValue } from './schema';
import { s, toComponentSchemas, toJsonSchema } from './schema';
import { apiRoutes, apiSchemas } from './api-routes';

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

describe('the schema builder', () => {
  const inner = s.object({ a: s.string() }).named('Inner').describe('an inner object');
  const outer = s
    .object({
      name: s.string({ minLength: 1 }),
      count: s.integer({ minimum: 0 }),
      ratio: s.number(),
      on: s.boolean(),
      status: s.enum(['A', 'B']),
      maybeStatus: s.nullable(s.enum(['A', 'B'])),
      yes: s.literal(true),
      tags: s.array(s.string()),
      map: s.record(s.integer()),
      inner,
      maybeInner: s.nullable(inner),
      optionalNote: s.optional(s.string()).describe('a note'),
      anything: s.json(),
      whatever: s.unknown(),
    })
    .named('Outer');

  it('infers the TypeScript type: readonly fields, optional ones with ?, nullable ones with null', () => {
    type Outer = Infer<typeof outer>;
    const same: Same<
      Outer,
      {
        readonly name: string;
        readonly count: number;
        readonly ratio: number;
        readonly on: boolean;
        readonly status: 'A' | 'B';
        readonly maybeStatus: 'A' | 'B' | null;
        readonly yes: true;
        readonly tags: readonly string[];
        readonly map: Readonly<Record<string, number>>;
        readonly inner: { readonly a: string };
        readonly maybeInner: { readonly a: string } | null;
        readonly optionalNote?: string;
        readonly anything: JsonValue;
        readonly whatever: unknown;
      }
    > = true;
    expect(same).toBe(true);
  });

  it('writes an OpenAPI 3.0 JSON Schema, every schema inlined', () => {
    const json = toJsonSchema(outer);
    expect(json).toEqual({
      type: 'object',
      properties: {
        name: { type: 'string', minLength: 1 },
        count: { type: 'integer', minimum: 0 },
        ratio: { type: 'number' },
        on: { type: 'boolean' },
        status: { type: 'string', enum: ['A', 'B'] },
        maybeStatus: { type: 'string', enum: ['A', 'B', null], nullable: true },
        yes: { type: 'boolean', enum: [true] },
        tags: { type: 'array', items: { type: 'string' } },
        map: { type: 'object', additionalProperties: { type: 'integer' } },
        inner: { type: 'object', properties: { a: { type: 'string' } }, required: ['a'], description: 'an inner object' },
        maybeInner: { type: 'object', properties: { a: { type: 'string' } }, required: ['a'], description: 'an inner object', nullable: true },
        optionalNote: { type: 'string', description: 'a note' },
        anything: {},
        whatever: {},
      },
      required: ['name', 'count', 'ratio', 'on', 'status', 'maybeStatus', 'yes', 'tags', 'map', 'inner', 'maybeInner', 'anything', 'whatever'],
    });
  });

  it('closes objects on request, and writes named schemas as $refs', () => {
    expect(toJsonSchema(inner, { closed: true })).toMatchObject({ additionalProperties: false });
    const withRefs = toJsonSchema(outer, { refs: (name) => `#/x/${name}` }) as { properties: Record<string, unknown> };
    expect(withRefs.properties.inner).toEqual({ $ref: '#/x/Inner' });
    expect(withRefs.properties.maybeInner).toEqual({ allOf: [{ $ref: '#/x/Inner' }], nullable: true });
  });

  it('gathers the named schemas as components, each once, and refuses two schemas of one name', () => {
    const components = toComponentSchemas([outer, inner]);
    expect(Object.keys(components)).toEqual(['Inner', 'Outer']);
    expect((components.Outer as { properties: Record<string, unknown> }).properties.inner).toEqual({ $ref: '#/components/schemas/Inner' });
    const clash = s.object({ b: s.string() }).named('Inner');
    expect(() => toComponentSchemas([outer, clash])).toThrow('Two different schemas are named "Inner"');
  });

  it('names each API schema after its key, and every route answers a known schema', () => {
    for (const [name, schema] of Object.entries(apiSchemas)) expect({ name, named: schema.meta.name }).toEqual({ name, named: name });
    const components = toComponentSchemas(Object.values(apiSchemas));
    for (const name of Object.keys(apiSchemas)) expect(components[name]).toBeDefined();
    for (const route of apiRoutes) {
      for (const answer of Object.values(route.answers)) expect(answer === 'text/event-stream' || answer === 'text/plain' || answer in apiSchemas).toBe(true);
      if (route.body !== undefined) expect(route.body in apiSchemas).toBe(true);
    }
  });
});
