import type { OpenAPIObject, OperationObject, ParameterObject, ReferenceObject, ResponseObject, SchemaObject } from '@nestjs/swagger';
import type { ApiRoute, JsonSchema, Schema } from '@agent-ledger/client';
import { apiRoutes, apiSchemas, toComponentSchemas, toJsonSchema } from '@agent-ledger/client';
import { RUN_ID_PATTERN } from '@agent-ledger/domain';

/** The component every error answer refers to (`#/components/schemas/ApiErrorBody`). */
export const API_ERROR_BODY_SCHEMA = 'ApiErrorBody';

const JSON_MEDIA_TYPE = 'application/json';

/** `#/components/schemas/<name>`. */
export function componentRef(name: string): ReferenceObject {
  return { $ref: `#/components/schemas/${name}` };
}

/**
 * Makes the bodies of `document` (as `@nestjs/swagger` built it from the
 * controllers) those of the client's contract (`@agent-ledger/client`), so
 * that the document and the client's types come from one source:
 *
 * - `components.schemas` holds the contract's schemas (`toComponentSchemas`);
 * - each operation of {@link apiRoutes}: each success status answers the
 *   contract's schema (`$ref`), every other JSON status the error body
 *   ({@link API_ERROR_BODY_SCHEMA}); its request body is the contract's, required
 *   unless the route says it is optional; its query parameters are the
 *   contract's query schema's properties; a `runId` in the path has the run
 *   id pattern.
 *
 * The controllers keep what is theirs: routes, descriptions, tags, security,
 * `x-required-scopes`, and which error statuses each route declares. A
 * route whose declared success statuses differ from the contract's, a
 * contract route no controller serves, or a request body or query the
 * contract does not name is a programming error: it throws, naming the route.
 * Operations the contract does not know (a host application's own routes)
 * are left as they are.
 *
 * @throws Error naming the route when the controllers and the contract disagree
 */
export function withContractSchemas(document: OpenAPIObject): OpenAPIObject {
  for (const route of apiRoutes) {
    const operation = document.paths[route.path]?.[lowerMethod(route)];
    if (operation === undefined) throw new Error(`The client's contract names ${routeName(route)}, which no controller serves`);
    applyRoute(route, operation);
  }
  document.components = { ...document.components, schemas: mergedSchemas(document) };
  return document;
}

function lowerMethod(route: ApiRoute): 'get' | 'post' {
  return route.method === 'GET' ? 'get' : 'post';
}

function routeName(route: ApiRoute): string {
  return `${route.method} ${route.path}`;
}

function applyRoute(route: ApiRoute, operation: OperationObject): void {
  const declaredSuccesses = Object.keys(operation.responses).filter((status) => status.startsWith('2'));
  const contractStatuses = Object.keys(route.answers);
  const contractSuccesses = contractStatuses.filter((status) => status.startsWith('2'));
  if ([...declaredSuccesses].sort().join() !== [...contractSuccesses].sort().join()) {
    throw new Error(`${routeName(route)}: the controller declares the success statuses [${declaredSuccesses.join(', ')}], the client's contract [${contractSuccesses.join(', ')}]`);
  }
  for (const status of contractStatuses) {
    if (operation.responses[status] === undefined) throw new Error(`${routeName(route)}: the client's contract answers ${status}, which the controller does not declare`);
  }
  for (const [status, response] of Object.entries(operation.responses)) {
    if (response === undefined || '$ref' in response) continue; // a shared response (415) is typed where it is declared
    const answer = route.answers[Number(status)];
    if (answer === 'text/event-stream' || answer === 'text/plain') {
      if (response.content?.[answer] === undefined) throw new Error(`${routeName(route)} ${status}: the client's contract answers ${answer}, which the controller does not declare`);
      continue;
    }
    operation.responses[status] = jsonResponse(response, answer ?? API_ERROR_BODY_SCHEMA);
  }
  applyRequestBody(route, operation);
  applyParameters(route, operation);
}

function jsonResponse(response: ResponseObject, schemaName: string): ResponseObject {
  return { ...response, content: { [JSON_MEDIA_TYPE]: { schema: componentRef(schemaName) } } };
}

function applyRequestBody(route: ApiRoute, operation: OperationObject): void {
  if (route.body === undefined) {
    if (operation.requestBody !== undefined) throw new Error(`${routeName(route)}: the controller takes a request body the client's contract does not name`);
    return;
  }
  const description = apiSchemas[route.body].meta.description;
  operation.requestBody = {
    ...(description === undefined ? {} : { description }),
    required: route.bodyOptional !== true,
    content: { [JSON_MEDIA_TYPE]: { schema: componentRef(route.body) } },
  };
}

function applyParameters(route: ApiRoute, operation: OperationObject): void {
  const others: (ParameterObject | ReferenceObject)[] = [];
  for (const parameter of operation.parameters ?? []) {
    if ('$ref' in parameter) others.push(parameter);
    else if (parameter.in === 'query') continue;
    else if (parameter.in === 'path' && parameter.name === 'runId') others.push({ ...parameter, schema: { type: 'string', pattern: RUN_ID_PATTERN.source } });
    else others.push(parameter);
  }
  const declaredQuery = (operation.parameters ?? []).some((parameter) => !('$ref' in parameter) && parameter.in === 'query');
  if (route.query === undefined) {
    if (declaredQuery) throw new Error(`${routeName(route)}: the controller takes a query the client's contract does not name`);
    operation.parameters = others;
    return;
  }
  operation.parameters = [...others, ...queryParameters(route.query)];
}

/** One query parameter per property of an object schema, each with its schema (without its description, which the parameter carries). */
function queryParameters(query: Schema<unknown>): ParameterObject[] {
  if (query.node.kind !== 'object') throw new Error('A query schema must be an object schema');
  return Object.entries(query.node.shape).map(([name, property]) => {
    const { description, ...schema } = toJsonSchema(property) as JsonSchema & { readonly description?: string };
    return {
      name,
      in: 'query',
      required: property.node.kind !== 'optional',
      ...(typeof description === 'string' ? { description } : {}),
      schema: schema as SchemaObject,
    };
  });
}

/**
 * The contract's schemas, and those of `@nestjs/swagger` still referenced
 * (by operations the contract does not know): the DTOs' schemas that the
 * contract's request bodies replaced are dropped, and a contract's name
 * wins over a generated schema's.
 */
function mergedSchemas(document: OpenAPIObject): Record<string, SchemaObject | ReferenceObject> {
  const contract = toComponentSchemas(Object.values(apiSchemas)) as Record<string, SchemaObject>;
  const generated = document.components?.schemas ?? {};
  const kept: Record<string, SchemaObject | ReferenceObject> = {};
  const pending = referencedNames({ paths: document.paths, responses: document.components?.responses });
  while (pending.length > 0) {
    const name = pending.pop() as string;
    if (name in kept || name in contract) continue;
    const schema = generated[name];
    if (schema === undefined) continue;
    kept[name] = schema;
    pending.push(...referencedNames(schema));
  }
  return { ...contract, ...kept };
}

function referencedNames(value: unknown): string[] {
  return [...JSON.stringify(value ?? null).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((match) => match[1] as string);
}
