import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { OpenAPIObject, OperationObject, ParameterObject, ReferenceObject, RequestBodyObject, ResponseObject, SchemaObject } from '@nestjs/swagger';
import { apiRoutes, apiSchemas, RUN_ID_PATTERN, toComponentSchemas } from '@agent-ledger/client';
import { RunStatus } from '@agent-ledger/domain';
import { APPROVAL_STATES } from '@agent-ledger/projections';
import { loadServiceDefinitions } from '../../config/service-definitions';
import { AppModule } from '../../app.module';
import { openStores } from '../../config/open-stores';
import { readServiceConfig } from '../../config/service-config';
import { buildOpenApiDocument } from '@agent-ledger/http';

const repoRoot = join(__dirname, '..', '..', '..', '..', '..');
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head'] as const;

/**
 * The OpenAPI document of the real application, built as `src/main.ts` builds
 * it (configuration, stores on a temp data folder, `AppModule.forRoot`,
 * `buildOpenApiDocument`), without listening nor starting workers.
 */
async function generateDocument(): Promise<OpenAPIObject> {
  const dataDir = mkdtempSync(join(tmpdir(), 'agent-ledger-openapi-'));
  try {
    const config = readServiceConfig({ AGENT_LEDGER_DATA_DIR: dataDir, EVENTSTORE_CONNECTION_STRING: '', WORKER_CONCURRENCY: '0', REAPER_INTERVAL_MS: '0' }, repoRoot);
    mkdirSync(config.dataDir, { recursive: true });
    mkdirSync(config.workspaceDir, { recursive: true });
    const { agents } = await loadServiceDefinitions(config);
    const stores = openStores(config);
    try {
      const auditStore = stores.auditStore === stores.runStore ? undefined : stores.auditStore;
      const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot({ config, store: stores.runStore, auditStore, agents }), { logger: false });
      try {
        return buildOpenApiDocument(app);
      } finally {
        await app.close();
      }
    } finally {
      await stores.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

describe('the OpenAPI document', () => {
  let document: OpenAPIObject;

  beforeAll(async () => {
    document = await generateDocument();
  });

  /** Follows a `$ref` to `#/components/schemas/<name>`. */
  function resolve(schema: SchemaObject | ReferenceObject): SchemaObject {
    if (!('$ref' in schema)) return schema;
    const name = schema.$ref.replace('#/components/schemas/', '');
    const target = document.components?.schemas?.[name];
    if (target === undefined) throw new Error(`dangling $ref ${schema.$ref}`);
    return resolve(target);
  }

  /** A property of an object schema, resolved. */
  function property(schema: SchemaObject, name: string): SchemaObject {
    const found = schema.properties?.[name];
    if (found === undefined) throw new Error(`no property ${name} in ${JSON.stringify(schema)}`);
    return resolve(found);
  }

  function responseOf(path: string, method: (typeof METHODS)[number], status: string): ResponseObject {
    const response = document.paths[path]?.[method]?.responses?.[status];
    if (response === undefined) throw new Error(`no ${status} response for ${method.toUpperCase()} ${path}`);
    return response as ResponseObject;
  }

  function jsonSchemaOf(path: string, method: (typeof METHODS)[number], status: string): SchemaObject {
    const schema = responseOf(path, method, status).content?.['application/json']?.schema;
    if (schema === undefined) throw new Error(`no application/json schema for ${status} of ${method.toUpperCase()} ${path}`);
    return resolve(schema);
  }

  /** Every success response of every route. */
  function successResponses(): { route: string; status: string; response: ResponseObject }[] {
    const found: { route: string; status: string; response: ResponseObject }[] = [];
    for (const [path, item] of Object.entries(document.paths)) {
      for (const method of METHODS) {
        for (const [status, response] of Object.entries(item[method]?.responses ?? {})) {
          if (/^2\d\d$/.test(status)) found.push({ route: `${method.toUpperCase()} ${path}`, status, response: response as ResponseObject });
        }
      }
    }
    return found;
  }

  it('types every JSON success body: a $ref or an object with properties, never a bare { type: "object" }', () => {
    const successes = successResponses();
    expect(successes.length).toBeGreaterThanOrEqual(15);
    const untyped: string[] = [];
    for (const { route, status, response } of successes) {
      const schema = response.content?.['application/json']?.schema;
      if (schema === undefined) continue;
      const typed = '$ref' in schema || (schema.properties !== undefined && Object.keys(schema.properties).length > 0);
      if (!typed) untyped.push(`${route} ${status}: ${JSON.stringify(schema)}`);
    }
    expect(untyped).toEqual([]);
  });

  it('gives every success response a content type, and every $ref a schema', () => {
    const withoutContent = successResponses()
      .filter(({ response }) => response.content === undefined || Object.keys(response.content).length === 0)
      .map(({ route, status }) => `${route} ${status}`);
    expect(withoutContent).toEqual([]);
    const refs = [...JSON.stringify(document).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1] ?? '');
    expect(refs.length).toBeGreaterThan(0);
    expect(refs.filter((name) => document.components?.schemas?.[name] === undefined)).toEqual([]);
  });

  it('GET /runs/{runId}: the status enum is every RunStatus', () => {
    const row = jsonSchemaOf('/runs/{runId}', 'get', '200');
    expect(property(row, 'status').enum).toEqual(Object.values(RunStatus));
  });

  it('GET /runs: a runs array of run-status rows and a nullable nextCursor', () => {
    const page = jsonSchemaOf('/runs', 'get', '200');
    const runs = property(page, 'runs');
    expect(runs.type).toBe('array');
    expect(resolve(runs.items ?? {}).properties).toHaveProperty('runId');
    expect(property(page, 'nextCursor')).toMatchObject({ type: 'string', nullable: true });
    expect(page.required).toEqual(expect.arrayContaining(['runs', 'nextCursor']));
  });

  it('GET /audit/review: totals and the lists of the report', () => {
    const report = jsonSchemaOf('/audit/review', 'get', '200');
    expect(property(report, 'totals').properties).toHaveProperty('writesWithoutAudit');
    expect(property(report, 'writes').type).toBe('array');
  });

  it('POST /runs: 202 queued and 200 interactive, each typed; GET /ready 503 typed like its 200', () => {
    expect(jsonSchemaOf('/runs', 'post', '202').properties).toHaveProperty('replayed');
    expect(jsonSchemaOf('/runs', 'post', '200').properties).toHaveProperty('run');
    expect(jsonSchemaOf('/ready', 'get', '503')).toEqual(jsonSchemaOf('/ready', 'get', '200'));
  });

  it('the SSE routes answer text/event-stream, described frame by frame; /metrics answers text/plain', () => {
    for (const path of ['/events', '/runs/{runId}/events']) {
      const ok = responseOf(path, 'get', '200');
      expect(Object.keys(ok.content ?? {})).toEqual(['text/event-stream']);
      expect(ok.description).toMatch(/`id:`.*position/);
      expect(ok.description).toMatch(/`event:`.*type/);
      expect(ok.description).toMatch(/`data:`.*JSON/);
    }
    expect(Object.keys(responseOf('/metrics', 'get', '200').content ?? {})).toEqual(['text/plain']);
  });

  function operationOf(path: string, method: (typeof METHODS)[number]): OperationObject & { readonly 'x-required-scopes'?: readonly string[] } {
    const operation = document.paths[path]?.[method];
    if (operation === undefined) throw new Error(`no ${method.toUpperCase()} ${path}`);
    return operation;
  }

  function requestSchemaOf(path: string, method: (typeof METHODS)[number]): SchemaObject {
    const schema = (operationOf(path, method).requestBody as RequestBodyObject | undefined)?.content['application/json']?.schema;
    if (schema === undefined) throw new Error(`no application/json request body for ${method.toUpperCase()} ${path}`);
    return resolve(schema);
  }

  function expectErrorBodies(path: string, method: (typeof METHODS)[number], statuses: readonly string[]): void {
    for (const status of statuses) {
      expect({ status, schema: responseOf(path, method, status).content?.['application/json']?.schema }).toEqual({ status, schema: { $ref: '#/components/schemas/ApiErrorBody' } });
    }
  }

  it('POST /runs/{runId}/approval: a typed body (decision, reason, round), a typed 200 with the run, its errors, the scope runs:approve', () => {
    const operation = operationOf('/runs/{runId}/approval', 'post');
    expect(operation['x-required-scopes']).toEqual(['runs:approve']);
    expect(operation.security).toEqual(expect.arrayContaining([{ bearer: [] }, { apiKeyHeader: [] }]));
    const body = requestSchemaOf('/runs/{runId}/approval', 'post');
    expect(property(body, 'decision').enum).toEqual(['approve', 'deny']);
    expect(property(body, 'reason')).toMatchObject({ type: 'string', minLength: 1, maxLength: 500 });
    expect(property(body, 'round')).toMatchObject({ type: 'integer', minimum: 0, maximum: 19 });
    expect(body.required).toEqual(['decision']);
    expect(body.properties).not.toHaveProperty('decidedBy');
    const answer = jsonSchemaOf('/runs/{runId}/approval', 'post', '200');
    expect(property(answer, 'status').enum).toEqual(Object.values(RunStatus));
    expect(Object.keys(property(answer, 'run').properties ?? {})).toEqual(expect.arrayContaining(['status', 'reason', 'pendingApproval', 'pendingInput', 'steps']));
    expect(answer.required).toEqual(expect.arrayContaining(['runId', 'status', 'run', 'auditStatement']));
    expect(property(answer, 'auditStatement').enum).toEqual(['recorded', 'pending']);
    expect(Object.keys(operation.responses).sort()).toEqual(['200', '400', '401', '403', '404', '409', '413', '415', '500', '503', '507']);
    expectErrorBodies('/runs/{runId}/approval', 'post', ['400', '401', '403', '404', '409', '500', '503', '507']);
  });

  it('POST /runs/{runId}/input: a body with a required input (any JSON, null included), the same 200 answer, the scope runs:submit', () => {
    const operation = operationOf('/runs/{runId}/input', 'post');
    expect(operation['x-required-scopes']).toEqual(['runs:submit']);
    const body = requestSchemaOf('/runs/{runId}/input', 'post');
    // Any JSON value, null included: a schema without `type`.
    expect(property(body, 'input').type).toBeUndefined();
    expect(body.required).toEqual(['input']);
    expect(jsonSchemaOf('/runs/{runId}/input', 'post', '200')).toEqual(jsonSchemaOf('/runs/{runId}/approval', 'post', '200'));
    expect(Object.keys(operation.responses).sort()).toEqual(['200', '400', '401', '403', '404', '409', '413', '415', '500', '503', '507']);
    expectErrorBodies('/runs/{runId}/input', 'post', ['400', '404', '409']);
  });

  it('GET /approvals: its query, a page of approval rows (state enum, calls, nullable decision fields), the scope runs:read', () => {
    const operation = operationOf('/approvals', 'get');
    expect(operation['x-required-scopes']).toEqual(['runs:read']);
    const parameters = (operation.parameters ?? []) as ParameterObject[];
    expect(parameters.map((p) => [p.name, p.in, p.required ?? false]).sort()).toEqual(
      ['agent', 'cursor', 'limit', 'runId', 'since', 'state', 'until'].map((name) => [name, 'query', false]),
    );
    expect(resolve(parameters.find((p) => p.name === 'state')?.schema ?? {}).enum).toEqual([...APPROVAL_STATES]);
    const page = jsonSchemaOf('/approvals', 'get', '200');
    expect(property(page, 'nextCursor')).toMatchObject({ type: 'string', nullable: true });
    const row = resolve(property(page, 'approvals').items ?? {});
    expect(property(row, 'state').enum).toEqual([...APPROVAL_STATES]);
    expect(property(row, 'onDenial').enum).toEqual(['tellModel', 'endRun']);
    expect(resolve(property(row, 'calls').items ?? {}).properties).toHaveProperty('arguments');
    for (const name of ['decidedBy', 'reason', 'decidedAt']) expect(property(row, name).nullable).toBe(true);
    expect(row.required).toEqual(expect.arrayContaining(['approvalId', 'runId', 'agent', 'round', 'calls', 'onDenial', 'requestedAt', 'state', 'decidedBy', 'reason', 'decidedAt']));
    expectErrorBodies('/approvals', 'get', ['400', '401', '403']);
  });

  it("RunView's steps may be denied, as in the steps read model", () => {
    const view = property(jsonSchemaOf('/runs/{runId}/approval', 'post', '200'), 'run');
    const step = resolve(property(view, 'steps').items ?? {});
    expect(property(step, 'outcome').enum).toEqual(['succeeded', 'failed', 'denied', null]);
  });

  it('GET /me, GET /agents, /projections/rebuild and GET /audit/chains: typed answers, their scopes, their errors', () => {
    expect(operationOf('/me', 'get')['x-required-scopes']).toBeUndefined();
    expect(operationOf('/me', 'get').security).toEqual(expect.arrayContaining([{ bearer: [] }, { apiKeyHeader: [] }]));
    const me = jsonSchemaOf('/me', 'get', '200');
    expect(property(me, 'keyId')).toMatchObject({ type: 'string', nullable: true });
    expect(property(me, 'authMode').enum).toEqual(['api-keys', 'disabled-on-loopback']);
    expect(resolve(property(me, 'scopes').items ?? {}).enum).toEqual(expect.arrayContaining(['runs:read', 'operate']));

    expect(operationOf('/agents', 'get')['x-required-scopes']).toEqual(['runs:submit', 'runs:read']);
    const agent = resolve(property(jsonSchemaOf('/agents', 'get', '200'), 'agents').items ?? {});
    expect(property(agent, 'description')).toMatchObject({ nullable: true });
    expect(property(resolve(property(agent, 'tools').items ?? {}), 'effect').enum).toEqual(['READ_ONLY', 'IDEMPOTENT_WRITE', 'NON_IDEMPOTENT_WRITE']);
    expect(property(property(agent, 'approvals'), 'onDenial').enum).toEqual(['tellModel', 'endRun']);

    for (const method of ['get', 'post'] as const) expect(operationOf('/projections/rebuild', method)['x-required-scopes']).toEqual(['operate']);
    expect(property(requestSchemaOf('/projections/rebuild', 'post'), 'projection').enum).toEqual(['runStatus', 'steps', 'auditReview', 'approvals']);
    const rebuild = property(jsonSchemaOf('/projections/rebuild', 'post', '202'), 'rebuild');
    expect(jsonSchemaOf('/projections/rebuild', 'get', '200')).toEqual(jsonSchemaOf('/projections/rebuild', 'post', '202'));
    expect(property(rebuild, 'state').enum).toEqual(['idle', 'running', 'succeeded', 'failed']);
    for (const name of ['projections', 'requestedBy', 'startedAt', 'finishedAt', 'error']) expect(property(rebuild, name).nullable).toBe(true);
    // A nullable object is `{ nullable: true, allOf: [{ $ref }] }`.
    const nullableObject = (name: string): SchemaObject => {
      const schema = rebuild.properties?.[name] as SchemaObject | undefined;
      expect({ name, nullable: schema?.nullable }).toEqual({ name, nullable: true });
      return resolve(schema?.allOf?.[0] ?? {});
    };
    expect(Object.keys(nullableObject('progress').properties ?? {})).toEqual(expect.arrayContaining(['phase', 'source', 'eventsDone', 'fractionDone', 'eventsPerSecond', 'etaMs']));
    expect(Object.keys(nullableObject('result').properties ?? {})).toEqual(expect.arrayContaining(['projections', 'eventsDone', 'eventsApplied', 'elapsedMs']));
    expectErrorBodies('/projections/rebuild', 'post', ['400', '401', '403', '409']);

    const chains = operationOf('/audit/chains', 'get');
    expect(chains['x-required-scopes']).toEqual(['audit:read']);
    expect(((chains.parameters ?? []) as ParameterObject[]).map((p) => [p.name, p.in, p.required ?? false])).toEqual([['runId', 'query', false]]);
    const verification = jsonSchemaOf('/audit/chains', 'get', '200');
    expect(verification.required).toEqual(expect.arrayContaining(['runs', 'records', 'brokenRuns', 'breaks']));
    expect(property(resolve(property(verification, 'breaks').items ?? {}), 'problem').enum).toEqual(['hashMismatch', 'brokenLink', 'sequenceGap', 'duplicateStep']);
    expectErrorBodies('/audit/chains', 'get', ['400', '401', '403', '404']);
  });

  it("takes every body schema from the client's contract: components.schemas is toComponentSchemas(apiSchemas), each answer and request body a $ref to it", () => {
    expect(document.components?.schemas).toEqual(toComponentSchemas(Object.values(apiSchemas)));
    for (const route of apiRoutes) {
      const operation = operationOf(route.path, route.method === 'GET' ? 'get' : 'post');
      for (const [status, answer] of Object.entries(route.answers)) {
        const content = (operation.responses[status] as ResponseObject).content ?? {};
        const expected = answer === 'text/event-stream' || answer === 'text/plain' ? [answer] : ['application/json'];
        expect({ route: `${route.method} ${route.path} ${status}`, types: Object.keys(content) }).toEqual({ route: `${route.method} ${route.path} ${status}`, types: expected });
        if (expected[0] === 'application/json') expect(content['application/json']?.schema).toEqual({ $ref: `#/components/schemas/${answer}` });
      }
      const body = operation.requestBody as RequestBodyObject | undefined;
      expect({ route: `${route.method} ${route.path}`, body: body?.content['application/json']?.schema, required: body?.required }).toEqual({
        route: `${route.method} ${route.path}`,
        body: route.body === undefined ? undefined : { $ref: `#/components/schemas/${route.body}` },
        required: route.body === undefined ? undefined : route.bodyOptional !== true,
      });
    }
  });

  it('marks the bodies the service takes as optional as not required (cancel, requeue, rebuild), and the others as required', () => {
    const required = (path: string) => (operationOf(path, 'post').requestBody as RequestBodyObject).required;
    expect(['/runs/{runId}/cancel', '/runs/{runId}/requeue', '/projections/rebuild'].map(required)).toEqual([false, false, false]);
    expect(['/runs', '/runs/{runId}/approval', '/runs/{runId}/input'].map(required)).toEqual([true, true, true]);
  });

  it("answers every error status of the service's routes with the error body, and gives a runId in the path its pattern", () => {
    for (const route of apiRoutes) {
      const operation = operationOf(route.path, route.method === 'GET' ? 'get' : 'post');
      for (const [status, response] of Object.entries(operation.responses)) {
        if (status.startsWith('2') || status === '415' || route.answers[Number(status)] !== undefined) continue;
        if (response === undefined) continue;
        const shared = '$ref' in response ? (document.components?.responses?.[response.$ref.replace('#/components/responses/', '')] as ResponseObject | undefined) : response;
        expect({ route: `${route.method} ${route.path} ${status}`, schema: shared?.content?.['application/json']?.schema }).toEqual({
          route: `${route.method} ${route.path} ${status}`,
          schema: { $ref: '#/components/schemas/ApiErrorBody' },
        });
      }
      const runId = ((operation.parameters ?? []) as ParameterObject[]).find((parameter) => parameter.in === 'path' && parameter.name === 'runId');
      if (route.path.includes('{runId}')) expect(runId?.schema).toEqual({ type: 'string', pattern: RUN_ID_PATTERN });
    }
  });

  it('leaves the console and its redirects out of the document', () => {
    expect(Object.keys(document.paths).filter((path) => path === '/' || path.startsWith('/console'))).toEqual([]);
  });

  it('answers 415 on every operation (one shared response, an error body naming the type received), and takes JSON request bodies only', () => {
    const operations = Object.entries(document.paths).flatMap(([path, item]) => METHODS.filter((method) => item[method] !== undefined).map((method) => ({ route: `${method.toUpperCase()} ${path}`, operation: item[method] as OperationObject })));
    expect(operations.length).toBeGreaterThanOrEqual(20);
    const without = operations.filter(({ operation }) => JSON.stringify(operation.responses['415']) !== JSON.stringify({ $ref: '#/components/responses/UnsupportedMediaType' })).map(({ route }) => route);
    expect(without).toEqual([]);
    const shared = document.components?.responses?.UnsupportedMediaType as ResponseObject | undefined;
    expect(shared?.description).toMatch(/UNSUPPORTED_MEDIA_TYPE/);
    const schema = shared?.content?.['application/json']?.schema as SchemaObject | undefined;
    expect(schema?.allOf?.[0]).toEqual({ $ref: '#/components/schemas/ApiErrorBody' });
    expect(Object.keys(resolve(schema?.allOf?.[1] ?? {}).properties ?? {})).toEqual(['received', 'expected']);
    const bodies = operations.filter(({ operation }) => operation.requestBody !== undefined);
    expect(bodies.map(({ route }) => route)).toEqual(expect.arrayContaining(['POST /runs', 'POST /runs/{runId}/cancel', 'POST /projections/rebuild']));
    for (const { route, operation } of bodies) expect({ route, types: Object.keys((operation.requestBody as RequestBodyObject).content) }).toEqual({ route, types: ['application/json'] });
  });

  it('answers 413 (over the limit) and 400 (not valid JSON) on every operation: shared responses, or its own 400 that says so', () => {
    const operations = Object.entries(document.paths).flatMap(([path, item]) => METHODS.filter((method) => item[method] !== undefined).map((method) => ({ route: `${method.toUpperCase()} ${path}`, operation: item[method] as OperationObject })));
    expect(operations.filter(({ operation }) => JSON.stringify(operation.responses['413']) !== JSON.stringify({ $ref: '#/components/responses/PayloadTooLarge' })).map(({ route }) => route)).toEqual([]);
    expect((document.components?.responses?.PayloadTooLarge as ResponseObject).description).toMatch(/PAYLOAD_TOO_LARGE/);
    expect((document.components?.responses?.MalformedJson as ResponseObject).description).toMatch(/MALFORMED_JSON/);
    for (const { route, operation } of operations) {
      const own = operation.responses['400'] as ResponseObject | ReferenceObject | undefined;
      const says = own !== undefined && ('$ref' in own ? own.$ref === '#/components/responses/MalformedJson' : own.description.includes('MALFORMED_JSON'));
      expect({ route, says }).toEqual({ route, says: true });
    }
    expect(responseOf('/me', 'get', '400')).toEqual({ $ref: '#/components/responses/MalformedJson' });
    expect(responseOf('/runs/{runId}', 'get', '400').description).toBe('not a run id (`INVALID_FIELD`); a JSON body that is not valid JSON (`MALFORMED_JSON`)');
  });

  it('keeps the JSON error bodies', () => {
    expect(responseOf('/runs/{runId}', 'get', '404').content?.['application/json']?.schema).toEqual({ $ref: '#/components/schemas/ApiErrorBody' });
    expect(responseOf('/events', 'get', '400').content?.['application/json']?.schema).toEqual({ $ref: '#/components/schemas/ApiErrorBody' });
  });
});
