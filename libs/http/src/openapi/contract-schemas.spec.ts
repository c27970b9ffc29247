import type { OpenAPIObject, OperationObject, RequestBodyObject, ResponseObject } from '@nestjs/swagger';
import { apiRoutes, apiSchemas, RUN_ID_PATTERN as CONTRACT_RUN_ID_PATTERN, toComponentSchemas } from '@agent-ledger/client';
import { RUN_ID_PATTERN } from '@agent-ledger/domain';
import { withContractSchemas } from './contract-schemas';

/** A document as `@nestjs/swagger` builds it from controllers that declare what the contract says, with DTO schemas of their own. */
function generated(): OpenAPIObject {
  const paths: OpenAPIObject['paths'] = {};
  for (const route of apiRoutes) {
    const responses: Record<string, ResponseObject> = {};
    for (const [status, answer] of Object.entries(route.answers)) {
      responses[status] = answer === 'text/event-stream' || answer === 'text/plain' ? { description: 'text', content: { [answer]: { schema: { type: 'string' } } } } : { description: `the ${answer}` };
    }
    responses['401'] = { description: 'no key', content: { 'application/json': { schema: { $ref: '#/components/schemas/SomeErrorDoc' } } } };
    const operation: OperationObject = {
      responses,
      parameters: [
        ...(route.path.includes('{runId}') ? [{ name: 'runId', in: 'path' as const, required: true, schema: { type: 'string' as const } }] : []),
        ...(route.query === undefined ? [] : [{ name: 'fromTheDto', in: 'query' as const, schema: { type: 'string' as const } }]),
      ],
      ...(route.body === undefined ? {} : { requestBody: { required: true, content: { 'application/json': { schema: { $ref: `#/components/schemas/${route.body}Dto` } } } } }),
    };
    paths[route.path] = { ...paths[route.path], [route.method.toLowerCase()]: operation };
  }
  paths['/host/things'] = { get: { responses: { '200': { description: 'a thing', content: { 'application/json': { schema: { $ref: '#/components/schemas/HostThing' } } } } } } };
  return {
    openapi: '3.0.0',
    info: { title: 'test', version: '1' },
    paths,
    components: { schemas: { StartRunRequestDto: { type: 'object' }, SomeErrorDoc: { type: 'object' }, HostThing: { type: 'object', properties: { id: { type: 'string' } } } } },
  };
}

function operation(document: OpenAPIObject, method: string, path: string): OperationObject {
  const found = document.paths[path]?.[method as 'get' | 'post'];
  if (found === undefined) throw new Error(`no ${method} ${path}`);
  return found;
}

describe('withContractSchemas', () => {
  it("puts the contract's schemas in components.schemas, keeps a host's schema, and drops the DTOs' and doc classes' no longer referenced", () => {
    const document = withContractSchemas(generated());
    expect(document.components?.schemas).toEqual({ ...toComponentSchemas(Object.values(apiSchemas)), HostThing: { type: 'object', properties: { id: { type: 'string' } } } });
  });

  it("answers each route's success statuses with the contract's schema and its errors with ApiErrorBody, keeping the descriptions", () => {
    const document = withContractSchemas(generated());
    const cancel = operation(document, 'post', '/runs/{runId}/cancel');
    expect(cancel.responses['202']).toEqual({ description: 'the CancelRunAnswer', content: { 'application/json': { schema: { $ref: '#/components/schemas/CancelRunAnswer' } } } });
    expect(cancel.responses['401']).toEqual({ description: 'no key', content: { 'application/json': { schema: { $ref: '#/components/schemas/ApiErrorBody' } } } });
    expect(operation(document, 'get', '/ready').responses['503']).toMatchObject({ content: { 'application/json': { schema: { $ref: '#/components/schemas/ReadinessReport' } } } });
    expect(operation(document, 'get', '/metrics').responses['200']).toEqual({ description: 'text', content: { 'text/plain': { schema: { type: 'string' } } } });
    expect(operation(document, 'get', '/host/things')).toEqual(generated().paths['/host/things']?.get);
  });

  it("takes request bodies (required unless optional) and query parameters from the contract, and gives runId its pattern", () => {
    const document = withContractSchemas(generated());
    const cancel = operation(document, 'post', '/runs/{runId}/cancel');
    expect(cancel.requestBody).toEqual({ description: 'The body of POST /runs/{runId}/cancel', required: false, content: { 'application/json': { schema: { $ref: '#/components/schemas/CancelRunRequest' } } } });
    expect((operation(document, 'post', '/runs').requestBody as RequestBodyObject).required).toBe(true);
    expect(cancel.parameters).toEqual([{ name: 'runId', in: 'path', required: true, schema: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$' } }]);
    const query = operation(document, 'get', '/audit/review').parameters;
    expect(query).toEqual([
      { name: 'runId', in: 'query', required: false, description: 'Only this run', schema: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$' } },
      { name: 'limit', in: 'query', required: false, description: 'Most rows in each list; default 1000', schema: { type: 'integer', minimum: 1, maximum: 100_000 } },
      { name: 'full', in: 'query', required: false, description: "true: verify every run from both stores' first event, whatever the checkpoint; default false", schema: { type: 'boolean' } },
    ]);
  });

  it("states the domain's run id rule: the client's contract (a package without dependencies) spells the same pattern", () => {
    expect(CONTRACT_RUN_ID_PATTERN).toBe(RUN_ID_PATTERN.source);
  });

  it('refuses a controller whose success statuses are not the contract’s, naming the route', () => {
    const extra = generated();
    operation(extra, 'get', '/runs/{runId}').responses['201'] = { description: 'created?' };
    expect(() => withContractSchemas(extra)).toThrow('GET /runs/{runId}: the controller declares the success statuses [200, 201], the client\'s contract [200]');
    const missing = generated();
    delete operation(missing, 'get', '/ready').responses['503'];
    expect(() => withContractSchemas(missing)).toThrow("GET /ready: the client's contract answers 503, which the controller does not declare");
  });

  it('refuses a contract route no controller serves, and a body or a query the contract does not name', () => {
    const unserved = generated();
    delete unserved.paths['/me'];
    expect(() => withContractSchemas(unserved)).toThrow("The client's contract names GET /me, which no controller serves");
    const body = generated();
    operation(body, 'get', '/me').requestBody = { content: { 'application/json': { schema: { type: 'object' } } } };
    expect(() => withContractSchemas(body)).toThrow("GET /me: the controller takes a request body the client's contract does not name");
    const query = generated();
    operation(query, 'get', '/me').parameters = [{ name: 'verbose', in: 'query' }];
    expect(() => withContractSchemas(query)).toThrow("GET /me: the controller takes a query the client's contract does not name");
  });
});
