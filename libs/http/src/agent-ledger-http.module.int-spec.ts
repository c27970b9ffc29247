import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CanActivate, ExecutionContext } from '@nestjs/common';
import { Controller, Get, Injectable, Module } from '@nestjs/common';
import { APP_GUARD, NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { DeclaresToolEffect, JsonObject, JsonValue } from '@agent-ledger/domain';
import { ToolEffect } from '@agent-ledger/domain';
import type { EventStore } from '@agent-ledger/event-store';
import { SqliteEventStore } from '@agent-ledger/event-store';
import type { AgentDefinition, AgentTool, ToolContext } from '@agent-ledger/runtime';
import { Tool } from '@agent-ledger/runtime';
import { AgentLedgerHttpModule } from './agent-ledger-http.module';
import { generateApiKey, hashApiKey } from './auth/api-keys';
import { RequireScope } from './auth/auth.decorators';
import { setUpAgentLedgerHttp } from './set-up-agent-ledger-http';
import { scaled } from '../../../test/support/time-scale';

/*
 * A Nest host of its own with the HTTP API and the console by importing one
 * module: AgentLedgerHttpModule, with a write tool of the host, behind the
 * host's own guard as well as the API keys.
 */

const signatures: string[] = [];

@Tool({
  name: 'guestbook.sign',
  description: 'Signs the guestbook.',
  parameters: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'], additionalProperties: false },
})
class SignGuestbookTool implements AgentTool<JsonObject & { name: string }>, DeclaresToolEffect {
  getEffect(): ToolEffect {
    return ToolEffect.NON_IDEMPOTENT_WRITE;
  }

  async execute(args: JsonObject & { name: string }, context: ToolContext): Promise<JsonValue> {
    signatures.push(`${args.name} ${context.idempotencyKey}`);
    return { signed: args.name };
  }
}

/** The host's own guard: every request of the application must name a tenant. */
@Injectable()
class TenantGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    return context.switchToHttp().getRequest<{ headers: Record<string, string | undefined> }>().headers['x-tenant'] === 'acme';
  }
}

@Controller('host')
class HostController {
  @RequireScope('runs:read')
  @Get('hello')
  hello(): { hello: string } {
    return { hello: 'from the host' };
  }

  /** A route that names no scope needs `operate`, which this test's key does not have. */
  @Get('unmarked')
  unmarked(): { hello: string } {
    return { hello: 'from the host' };
  }
}

const GREETER: AgentDefinition = {
  name: 'greeter',
  description: 'Signs the guestbook.',
  instructions: 'Sign the guestbook.',
  tools: ['guestbook.sign'],
  approvals: { preApproved: ['guestbook.sign'], onDenial: 'endRun' },
  maxIterations: 3,
  provider: { type: 'scripted', script: [{ toolCalls: [{ tool: 'guestbook.sign', arguments: { name: 'Ada' } }] }, { final: 'Signed.' }] },
};

describe('AgentLedgerHttpModule in a Nest host of its own', () => {
  const key = generateApiKey();
  const otherAgentsKey = generateApiKey();
  const metricsKey = generateApiKey();
  let dir: string;
  let store: EventStore;
  let app: NestExpressApplication;
  let base: string;

  const call = async (path: string, init: RequestInit & { tenant?: string | null } = {}): Promise<{ status: number; body: unknown; text: string }> => {
    const headers = new Headers(init.headers);
    if (init.tenant !== null) headers.set('x-tenant', init.tenant ?? 'acme');
    headers.set('authorization', `Bearer ${key}`);
    const response = await fetch(`${base}${path}`, { ...init, headers });
    const text = await response.text();
    let body: unknown = null;
    try {
      body = JSON.parse(text);
    } catch {
      body = null;
    }
    return { status: response.status, body, text };
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'agent-ledger-http-host-'));
    const consoleDir = join(dir, 'console');
    mkdirSync(consoleDir);
    writeFileSync(join(consoleDir, 'index.html'), '<!doctype html><title>host console</title>');
    store = SqliteEventStore.open({ path: join(dir, 'events.sqlite') });

    @Module({
      imports: [
        AgentLedgerHttpModule.forRoot({
          ledger: {
            store,
            agents: [GREETER],
            tools: { tools: [SignGuestbookTool] },
            reaper: { intervalMs: 0 },
            auditGapSaga: { databasePath: join(dir, 'saga.sqlite') },
            readModels: { databasePath: join(dir, 'read-models.sqlite') },
          },
          http: {
            auth: { mode: 'api-keys', modeSource: 'setting', apiKeys: [
                { id: 'host-ops', hash: hashApiKey(key), scopes: ['runs:submit', 'runs:read', 'audit:read'], agents: null },
                { id: 'other-team', hash: hashApiKey(otherAgentsKey), scopes: ['runs:read'], agents: ['someone-else'] },
                { id: 'metrics', hash: hashApiKey(metricsKey), scopes: ['metrics:read'], agents: null },
              ],
            },
            host: '127.0.0.1',
            httpBodyLimitBytes: 16_384,
            sseHeartbeatMs: 15_000,
            readyMaxProjectionLag: 1_000,
            consoleDir,
          },
        }),
      ],
      controllers: [HostController],
      providers: [{ provide: APP_GUARD, useClass: TenantGuard }],
    })
    class HostModule {}

    app = await NestFactory.create<NestExpressApplication>(HostModule, { bodyParser: false, logger: false });
    setUpAgentLedgerHttp(app);
    await app.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await app?.close();
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("completes a run of the host's own write tool through POST /runs: the write ran once, with its idempotency key, and is audited", async () => {
    const started = await call('/runs', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ agent: 'greeter', input: { task: 'sign' }, mode: 'interactive' }) });
    expect(started.status).toBe(200);
    const { runId, run } = started.body as { runId: string; run: { status: string } };
    expect(run.status).toBe('COMPLETED');
    expect(signatures).toEqual([`Ada agent-ledger:${runId}/r0/t0`]);
    const deadline = Date.now() + scaled(30_000);
    let totals: Record<string, number> = {};
    while (Date.now() < deadline) {
      const review = await call(`/audit/review?runId=${runId}`);
      totals = (review.body as { totals: Record<string, number> }).totals;
      if (totals['writesAudited'] === 1) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(totals).toMatchObject({ writes: 1, writesExecuted: 1, writesAudited: 1, writesWithoutAudit: 0 });
  });

  it("lists the host's tool with its effect in GET /agents and in the OpenAPI document's routes", async () => {
    const agents = await call('/agents');
    expect(agents.status).toBe(200);
    expect(agents.body).toMatchObject({ agents: [{ name: 'greeter', tools: [{ name: 'guestbook.sign', effect: 'NON_IDEMPOTENT_WRITE' }] }] });
    const openapi = await call('/openapi.json');
    const document = openapi.body as { paths: Record<string, unknown>; components: { schemas: Record<string, { properties: Record<string, { enum?: string[] }> }> }; 'x-agent-ledger-agents': unknown };
    expect(Object.keys(document.paths)).toEqual(expect.arrayContaining(['/runs', '/agents', '/host/hello']));
    expect(document['x-agent-ledger-agents']).toEqual([
      {
        name: 'greeter',
        description: 'Signs the guestbook.',
        tools: [{ name: 'guestbook.sign', effect: 'NON_IDEMPOTENT_WRITE', source: { kind: 'code' }, description: 'Signs the guestbook.', parameters: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'], additionalProperties: false } }],
        preApproved: ['guestbook.sign'],
      },
    ]);
    expect(document.components.schemas['StartRunRequest']?.properties['agent']?.enum).toEqual(['greeter']);
  });

  it("describes in the document only the agents the caller's key may use, and none to a key that may not list agents", async () => {
    for (const other of [otherAgentsKey, metricsKey]) {
      const response = await fetch(`${base}/openapi.json`, { headers: { authorization: `Bearer ${other}`, 'x-tenant': 'acme' } });
      const document = (await response.json()) as { 'x-agent-ledger-agents': unknown; components: { schemas: Record<string, { properties: Record<string, { enum?: string[] }> }> } };
      expect({ status: response.status, agents: document['x-agent-ledger-agents'], names: document.components.schemas['StartRunRequest']?.properties['agent']?.enum }).toEqual({ status: 200, agents: [], names: undefined });
    }
  });

  it('refuses a non-JSON body (415) and an unknown field (400 naming it), writing nothing', async () => {
    const text = await call('/runs', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'agent=greeter' });
    expect(text.status).toBe(415);
    const unknown = await call('/runs', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ agent: 'greeter', input: {}, colour: 'red' }) });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ field: 'colour' });
  });

  it("keeps the host's own guard in front of the API and the API key guard in front of the host's routes", async () => {
    expect((await call('/runs', { tenant: null })).status).toBe(403);
    expect(await call('/host/hello')).toMatchObject({ status: 200, body: { hello: 'from the host' } });
    expect((await call('/host/unmarked')).status).toBe(403);
    const withoutKey = await fetch(`${base}/host/hello`, { headers: { 'x-tenant': 'acme' } });
    expect(withoutKey.status).toBe(401);
  });

  it('serves the console from the folder it was given', async () => {
    const page = await call('/console/');
    expect(page.status).toBe(200);
    expect(page.text).toContain('host console');
  });
});
