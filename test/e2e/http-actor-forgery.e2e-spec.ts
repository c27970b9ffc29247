/**
 * Nobody can record another principal's name as the actor of a decision,
 * through any route that takes a body. The routes are read from the
 * service's own OpenAPI document (every operation with a `requestBody`), so
 * a route added later is covered without editing this test. Each gets, on
 * top of a plausible body, a field naming `someone-else` as the actor
 * (`requestedBy`, `decidedBy`, `submittedBy`, `resolvedBy`, `principal`,
 * `actor`). A refusal (400) is fine; what must never happen is a stored
 * event naming `someone-else` anywhere but in a caller's own words (`reason`,
 * `note`). The store is read after the service stopped, run and audit
 * streams alike.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteEventStore } from '@agent-ledger/event-store';
import { apiKeysEnv, testKey, withKey } from './support/http-auth-support';
import type { HttpService } from './support/http-service';
import { startHttpService, testAgentsYaml } from './support/http-service';

jest.setTimeout(180_000);

const FORGED = 'someone-else';
const ACTOR_FIELDS = ['requestedBy', 'decidedBy', 'submittedBy', 'resolvedBy', 'principal', 'actor'] as const;
/** Where a caller's own words are recorded: the forged name may appear there, as text, never as who acted. */
const WORDS_FIELDS: ReadonlySet<string> = new Set(['reason', 'note']);

interface Schema {
  readonly $ref?: string;
  readonly type?: string;
  readonly enum?: readonly unknown[];
  readonly properties?: Readonly<Record<string, Schema>>;
  readonly required?: readonly string[];
  readonly allOf?: readonly Schema[];
}
interface OpenApiDocument {
  readonly paths: Readonly<Record<string, Readonly<Record<string, { readonly requestBody?: { readonly content?: Readonly<Record<string, { readonly schema?: Schema }>> } }>>>>;
  readonly components?: { readonly schemas?: Readonly<Record<string, Schema>> };
}

/** A plausible body for `schema`: every property with a value of its type (the first of an enum), so that the route would act on it. */
function plausible(schema: Schema | undefined, document: OpenApiDocument, depth = 0): unknown {
  if (schema === undefined || depth > 5) return 'x';
  if (schema.$ref !== undefined) return plausible(document.components?.schemas?.[schema.$ref.split('/').at(-1) ?? ''], document, depth + 1);
  if (schema.allOf !== undefined) return plausible(schema.allOf[0], document, depth + 1);
  if (schema.enum !== undefined && schema.enum.length > 0) return schema.enum[0];
  if (schema.type === 'integer' || schema.type === 'number') return 0;
  if (schema.type === 'boolean') return false;
  if (schema.properties !== undefined) {
    return Object.fromEntries(Object.entries(schema.properties).map(([name, property]) => [name, plausible(property, document, depth + 1)]));
  }
  return 'x';
}

/** Every place of a stored payload that holds the forged name, as a path, unless it is a caller's own words. */
function forgedActors(value: unknown, path: readonly string[] = []): string[] {
  if (typeof value === 'string') return value.includes(FORGED) && !WORDS_FIELDS.has(path.at(-1) ?? '') ? [path.join('.')] : [];
  if (Array.isArray(value)) return value.flatMap((item, i) => forgedActors(item, [...path, String(i)]));
  if (typeof value === 'object' && value !== null) return Object.entries(value).flatMap(([key, item]) => forgedActors(item, [...path, key]));
  return [];
}

describe('no route records a name from the body as the actor (e2e, API keys)', () => {
  const ops = testKey('ops', ['runs:submit', 'runs:read', 'runs:approve', 'audit:read', 'operate']);
  const storeDir = mkdtempSync(join(tmpdir(), 'agent-ledger-forgery-store-'));
  const storePath = join(storeDir, 'agent-ledger.sqlite');
  let service: HttpService;

  beforeAll(async () => {
    service = await startHttpService({ agentsYaml: testAgentsYaml('http://127.0.0.1:9/v1'), env: { API_KEYS: apiKeysEnv([ops]), EVENT_STORE_PATH: storePath } });
  });

  afterAll(async () => {
    await service?.stop();
    rmSync(storeDir, { recursive: true, force: true });
  });

  it('enumerates the routes with a body from the OpenAPI document, tries every actor field on each, and the store names nobody but the key', async () => {
    const api = withKey(service.baseUrl, ops);
    const document = (await api.get<OpenApiDocument>('/openapi.json')).body;
    const routes = Object.entries(document.paths).flatMap(([path, operations]) =>
      Object.entries(operations)
        .filter(([, operation]) => operation.requestBody !== undefined)
        .map(([method, operation]) => ({ method: method.toUpperCase(), path, schema: operation.requestBody?.content?.['application/json']?.schema })),
    );
    // The decision routes at least: a document that lost them would make this test pass for nothing.
    expect(routes.map((r) => `${r.method} ${r.path}`)).toEqual(
      expect.arrayContaining(['POST /runs', 'POST /runs/{runId}/cancel', 'POST /runs/{runId}/requeue', 'POST /runs/{runId}/approval', 'POST /runs/{runId}/input', 'POST /projections/rebuild']),
    );

    /** A run waiting for what the route decides on, fresh for each attempt (a cancel settles it). */
    const waitingRun = async (path: string): Promise<string> => {
      const agent = path.endsWith('/input') ? 'asker' : 'approver';
      const status = path.endsWith('/input') ? 'WAITING_FOR_INPUT' : 'WAITING_FOR_APPROVAL';
      const started = await api.post<{ runId: string }>('/runs', { agent, input: 'go' });
      expect(started.status).toBe(202);
      const deadline = Date.now() + 60_000;
      for (;;) {
        const run = await api.get<{ status?: string }>(`/runs/${started.body.runId}`);
        if (run.body.status === status) return started.body.runId;
        if (Date.now() > deadline) throw new Error(`run ${started.body.runId} never reached ${status} (${JSON.stringify(run.body)})`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };

    const answers: string[] = [];
    for (const route of routes) {
      for (const field of ACTOR_FIELDS) {
        const forged = field === 'principal' ? { kind: 'apiKey', id: FORGED } : FORGED;
        const url = route.path.includes('{runId}') ? route.path.replace('{runId}', await waitingRun(route.path)) : route.path;
        const body = { ...(plausible(route.schema, document) as Record<string, unknown>), [field]: forged };
        const answer = await api.post<{ code?: string; field?: string }>(url, body);
        answers.push(`${route.method} ${route.path} ${field}: ${answer.status} ${answer.body.code ?? ''} ${answer.body.field ?? ''}`.trim());
        // Refused, naming the field (a route may also refuse the plausible body first, for another field).
        if (answer.status === 400) expect(answer.body.code).toBe('INVALID_FIELD');
      }
    }
    // A decision that did take effect records the key, never the body: one cancel with only a reason.
    const cancelled = await waitingRun('/cancel');
    expect((await api.post(`/runs/${cancelled}/cancel`, { reason: `asked by ${FORGED}` })).status).toBe(200);

    await service.stop();
    const store = SqliteEventStore.open({ path: storePath });
    try {
      const found: string[] = [];
      let cancels = 0;
      for await (const event of store.readAll()) {
        for (const path of forgedActors(event.data)) found.push(`${event.streamName} ${event.type} ${path}`);
        if (event.type === 'CancelRequested' && (event.data as { reason?: unknown }).reason === `asked by ${FORGED}`) {
          cancels++;
          expect((event.data as { requestedBy?: unknown }).requestedBy).toEqual({ kind: 'apiKey', id: 'ops' });
        }
      }
      expect({ found, answers }).toEqual({ found: [], answers });
      expect(cancels).toBe(1);
    } finally {
      await store.close();
    }
  });
});
