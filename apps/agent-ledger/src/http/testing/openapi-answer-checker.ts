/**
 * Test support: checks real answers of the HTTP API against the OpenAPI
 * document the service serves (`GET /openapi.json`), and records which
 * operation answered which status, so that a test can require every
 * operation and status to be exercised.
 */
import Ajv2020 from 'ajv/dist/2020';
import type { ValidateFunction } from 'ajv/dist/2020';

/** The parts of an OpenAPI 3.0 document the checker reads. */
export interface CheckedDocument {
  readonly paths: Readonly<Record<string, Readonly<Record<string, { readonly responses: Readonly<Record<string, unknown>> }>>>>;
  readonly components: { readonly schemas: Readonly<Record<string, unknown>>; readonly responses?: Readonly<Record<string, unknown>> };
}

/** A real answer: its status, Content-Type and body text. */
export interface RealAnswer {
  readonly status: number;
  readonly contentType: string;
  readonly text: string;
}

type JsonObject = { readonly [key: string]: unknown };
type ResponseObject = { readonly description?: string; readonly content?: Readonly<Record<string, { readonly schema?: unknown }>> };

const COMPONENTS_ID = 'urn:agent-ledger:openapi-components';
const COMPONENT_REF = '#/components/schemas/';
/** The schema each `data:` line of an SSE answer carries (its description in the document names it). */
const STREAMED_EVENT = 'StreamedEvent';

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * An OpenAPI 3.0 Schema Object as a JSON Schema 2020-12: `nullable: true`
 * becomes a `null` type (or an `anyOf` with `{ type: 'null' }` for a schema
 * without `type`), `$ref`s point into the components schema, and `example`
 * (not a validation keyword) is left out. With `closed`, an object schema
 * that declares properties and says nothing of others refuses them.
 */
export function toJsonSchema2020(schema: unknown, closed: boolean): unknown {
  if (!isObject(schema)) return schema;
  const { nullable, example: _example, $ref, properties, items, additionalProperties, allOf, anyOf, oneOf, not, ...rest } = schema;
  const converted: Record<string, unknown> = { ...rest };
  if (typeof $ref === 'string') converted.$ref = $ref.startsWith(COMPONENT_REF) ? `${COMPONENTS_ID}#/$defs/${$ref.slice(COMPONENT_REF.length)}` : $ref;
  if (isObject(properties)) converted.properties = Object.fromEntries(Object.entries(properties).map(([name, value]) => [name, toJsonSchema2020(value, closed)]));
  if (items !== undefined) converted.items = toJsonSchema2020(items, closed);
  if (additionalProperties !== undefined) converted.additionalProperties = typeof additionalProperties === 'boolean' ? additionalProperties : toJsonSchema2020(additionalProperties, closed);
  else if (closed && isObject(properties)) converted.additionalProperties = false;
  for (const [keyword, list] of [['allOf', allOf], ['anyOf', anyOf], ['oneOf', oneOf]] as const) {
    if (Array.isArray(list)) converted[keyword] = list.map((member) => toJsonSchema2020(member, closed));
  }
  if (not !== undefined) converted.not = toJsonSchema2020(not, closed);
  if (nullable !== true) return converted;
  if (typeof converted.type === 'string') return { ...converted, type: [converted.type, 'null'] };
  if (converted.type === undefined && Object.keys(converted).every((key) => key === 'description')) return converted; // any value, null included
  return { anyOf: [converted, { type: 'null' }] };
}

/** `GET /runs/{runId}` for an operation. */
export function operationName(method: string, path: string): string {
  return `${method.toUpperCase()} ${path}`;
}

/**
 * Validates answers against `document`: the status must be declared for the
 * operation, the Content-Type must be the declared one, a JSON body must
 * match the declared schema (components closed except `openComponents`:
 * a field the document does not list fails), an SSE body's frames must each
 * carry a `StreamedEvent`.
 */
export class OpenApiAnswerChecker {
  private readonly ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
  private readonly validators = new Map<string, ValidateFunction>();
  /** Each operation exercised, and the statuses it answered. */
  readonly answered = new Map<string, Set<string>>();
  /** How many answers were checked, and how many SSE frames among their bodies. */
  readonly counts = { answers: 0, eventFrames: 0 };

  constructor(
    private readonly document: CheckedDocument,
    openComponents: readonly string[],
  ) {
    const $defs = Object.fromEntries(Object.entries(document.components.schemas).map(([name, schema]) => [name, toJsonSchema2020(schema, !openComponents.includes(name))]));
    this.ajv.addSchema({ $id: COMPONENTS_ID, $defs });
  }

  /** Every operation of the document, as `GET /path`. */
  operations(): string[] {
    return Object.entries(this.document.paths).flatMap(([path, item]) => Object.keys(item).map((method) => operationName(method, path)));
  }

  /** Every declared status of every operation, as `GET /path 200`. */
  declaredStatuses(): string[] {
    return Object.entries(this.document.paths).flatMap(([path, item]) =>
      Object.entries(item).flatMap(([method, operation]) => Object.keys(operation.responses).map((status) => `${operationName(method, path)} ${status}`)),
    );
  }

  /**
   * Records and checks one answer of the operation `method path` (the
   * document's path template); returns the problems found (none: it conforms).
   */
  check(method: string, path: string, answer: RealAnswer): string[] {
    const name = operationName(method, path);
    const operation = this.document.paths[path]?.[method.toLowerCase()];
    if (operation === undefined) return [`${name} is not in the document`];
    const status = String(answer.status);
    this.counts.answers += 1;
    let seen = this.answered.get(name);
    if (seen === undefined) this.answered.set(name, (seen = new Set()));
    seen.add(status);
    const declared = this.response(operation.responses[status]);
    if (declared === undefined) return [`${name} answered ${status}, which the document does not declare for it (declared: ${Object.keys(operation.responses).join(', ')})`];
    const mediaType = answer.contentType.split(';')[0]?.trim() ?? '';
    const content = declared.content ?? {};
    if (Object.keys(content).length === 0) return answer.text === '' ? [] : [`${name} ${status}: the document declares no body, the answer has one (${mediaType})`];
    const entry = content[mediaType];
    if (entry === undefined) return [`${name} ${status}: answered ${mediaType || 'no Content-Type'}, the document declares ${Object.keys(content).join(', ')}`];
    if (mediaType === 'application/json') return this.validate(`${name} ${status}`, entry.schema, JSON.parse(answer.text) as unknown);
    if (mediaType === 'text/event-stream') return this.checkEventStream(`${name} ${status}`, answer.text);
    return answer.text.length > 0 ? [] : [`${name} ${status}: an empty ${mediaType} body`];
  }

  private response(declared: unknown): ResponseObject | undefined {
    if (!isObject(declared)) return undefined;
    const ref = declared.$ref;
    if (typeof ref === 'string') return this.response(this.document.components.responses?.[ref.replace('#/components/responses/', '')]);
    return declared as ResponseObject;
  }

  private validate(where: string, schema: unknown, body: unknown): string[] {
    const key = JSON.stringify(schema);
    let validate = this.validators.get(key);
    if (validate === undefined) {
      validate = this.ajv.compile(toJsonSchema2020(schema, false) as object);
      this.validators.set(key, validate);
    }
    if (validate(body)) return [];
    return [`${where}: ${this.ajv.errorsText(validate.errors, { separator: '; ' })}; body: ${JSON.stringify(body).slice(0, 600)}`];
  }

  /** Each complete frame's `data:` must be a StreamedEvent; comments and `retry:` lines aside (the text may end mid-frame: it was cut). */
  private checkEventStream(where: string, text: string): string[] {
    const frames = text.split(/\r?\n\r?\n/).slice(0, -1).map((frame) => frame.split(/\r?\n/).filter((line) => line.startsWith('data:')).map((line) => line.slice(5).trimStart()));
    const data = frames.filter((lines) => lines.length > 0).map((lines) => lines.join('\n'));
    if (data.length === 0) return [`${where}: no event frame in ${JSON.stringify(text.slice(0, 300))}`];
    this.counts.eventFrames += data.length;
    return data.flatMap((line) => this.validate(where, { $ref: `${COMPONENT_REF}${STREAMED_EVENT}` }, JSON.parse(line) as unknown));
  }
}
