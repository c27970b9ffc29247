/**
 * Plugins in the running service, in this process: real plugin files in a
 * temp folder, loaded from `AGENT_LEDGER_PLUGINS` as `serve` loads them
 * (`loadServiceDefinitions`), the application of `createServiceApp` on
 * embedded stores, runs started over HTTP.
 *
 * `tickets.js` is written as a user's compiled plugin is: it requires
 * `@agent-ledger/runtime` and `@agent-ledger/domain` (resolved here by Jest's
 * module mapper, as an installed package would be). `models.cjs` uses the
 * function form, `(api) => plugin`, and needs no package. An `.mjs` plugin is
 * loaded with `import()`, which Jest cannot run without
 * `--experimental-vm-modules`: the e2e test (test/e2e/plugins.e2e-spec.ts)
 * runs one in the built service.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { PluginError } from '@agent-ledger/runtime';
import type { OpenStores } from './open-stores';
import { openStores } from './open-stores';
import { readServiceConfig } from './service-config';
import { loadServiceDefinitions } from './service-definitions';
import { createServiceApp } from '../service-app';
import type { AgentsAnswer } from '@agent-ledger/http';
import type { AuditReviewAnswer } from '@agent-ledger/http';
import { scaled } from '../../../../test/support/time-scale';

const TICKETS_PLUGIN = `'use strict';
const { appendFileSync } = require('node:fs');
const { Tool, definePlugin } = require('@agent-ledger/runtime');
const { ToolEffect } = require('@agent-ledger/domain');

class SearchTickets {
  getEffect() { return ToolEffect.READ_ONLY; }
  async execute(args) { return [{ id: 'T-1', title: 'Printer on fire', query: args.query }]; }
}
Tool({
  name: 'tickets.search',
  description: 'Searches the tickets.',
  parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'], additionalProperties: false },
})(SearchTickets);

class CommentOnTicket {
  getEffect() { return ToolEffect.NON_IDEMPOTENT_WRITE; }
  async execute(args, context) {
    appendFileSync(process.env.TICKETS_LEDGER, JSON.stringify({ args, idempotencyKey: context.idempotencyKey, runId: context.runId, stepId: context.stepId }) + '\\n');
    return { commented: args.id };
  }
}
Tool({
  name: 'tickets.comment',
  description: 'Adds a comment to a ticket.',
  parameters: { type: 'object', properties: { id: { type: 'string' }, text: { type: 'string' } }, required: ['id', 'text'], additionalProperties: false },
})(CommentOnTicket);

module.exports = definePlugin({
  tools: [SearchTickets, CommentOnTicket],
  agents: [{
    name: 'triager',
    description: 'Finds the ticket and comments on it.',
    instructions: 'Triage the ticket.',
    tools: ['tickets.search', 'tickets.comment'],
    approvals: { preApproved: ['tickets.comment'] },
    provider: {
      type: 'scripted',
      script: [
        { toolCalls: [{ tool: 'tickets.search', arguments: { query: 'printer' } }] },
        { toolCalls: [{ tool: 'tickets.comment', arguments: { id: 'T-1', text: 'On it' } }] },
        { final: 'Commented on T-1' },
      ],
    },
  }],
});
`;

const MODELS_PLUGIN = `'use strict';
module.exports = ({ Tool, ToolEffect, definePlugin, ConfigurationError }) => {
  class ReadNote {
    getEffect() { return ToolEffect.READ_ONLY; }
    async execute() { return 'remember the milk'; }
  }
  Tool({ name: 'notes.read', description: 'Reads the note.', parameters: { type: 'object' } })(ReadNote);
  return definePlugin({
    tools: [ReadNote],
    modelProviders: {
      // A model that reads the note, then answers with its reply setting.
      canned: (settings) => {
        if (typeof settings.reply !== 'string') throw new ConfigurationError('provider.reply must be a string');
        return {
          async respond(request) {
            return request.round === 0
              ? { type: 'toolCalls', calls: [{ toolName: 'notes.read', arguments: {} }] }
              : { type: 'final', content: settings.reply };
          },
        };
      },
    },
  });
};
`;

/** The agents file: one agent of its own, on a plugin's tool and a plugin's provider type. */
const AGENTS_YAML = `agents:
  - name: note-taker
    instructions: Read the note.
    tools: [notes.read, clock.now]
    provider: { type: canned, reply: noted }
`;

describe('plugins in the service (in-process)', () => {
  let dir: string;
  let app: NestExpressApplication | undefined;
  let stores: OpenStores | undefined;
  let baseUrl: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'agent-ledger-plugins-int-'));
    writeFileSync(join(dir, 'tickets.js'), TICKETS_PLUGIN);
    writeFileSync(join(dir, 'models.cjs'), MODELS_PLUGIN);
    writeFileSync(join(dir, 'agents.yaml'), AGENTS_YAML);
    process.env.TICKETS_LEDGER = join(dir, 'comments.jsonl');
    writeFileSync(process.env.TICKETS_LEDGER, '');
  });

  afterEach(async () => {
    try {
      await app?.close();
    } finally {
      await stores?.close();
      app = undefined;
      stores = undefined;
      delete process.env.TICKETS_LEDGER;
      rmSync(dir, { recursive: true, force: true });
    }
  });

  function configFor(env: Record<string, string>) {
    return readServiceConfig(
      {
        AGENT_LEDGER_DATA_DIR: join(dir, 'data'),
        EVENTSTORE_CONNECTION_STRING: '',
        AGENTS_CONFIG: join(dir, 'agents.yaml'),
        WORKER_CONCURRENCY: '1',
        REAPER_INTERVAL_MS: '0',
        CONSOLE_DIR: join(dir, 'console'),
        ...env,
      },
      dir,
    );
  }

  async function start(env: Record<string, string>): Promise<void> {
    const config = configFor(env);
    const { agents, plugins } = await loadServiceDefinitions(config);
    // The validation's `structuredClone` builds the scripts' arguments in Node's realm, not Jest's, whose plain-object
    // check the store applies: copy the definitions into this realm (a test-only concern, as in http-test-app.ts).
    const copied = JSON.parse(JSON.stringify(agents)) as typeof agents;
    mkdirSync(config.workspaceDir, { recursive: true });
    stores = openStores(config);
    app = await createServiceApp({ config, stores, agents: copied, plugins, logger: false });
    await app.listen(0, '127.0.0.1');
    baseUrl = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
  }

  async function call<T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as T };
  }

  it("runs a plugin agent on the plugin's read and write tools through the same path as the built-ins: the write once, with its idempotency key, audited", async () => {
    await start({ AGENT_LEDGER_PLUGINS: 'tickets.js, models.cjs' });

    const agents = await call<AgentsAnswer>('GET', '/agents');
    expect(agents.status).toBe(200);
    expect(agents.body.agents).toEqual([
      {
        name: 'note-taker',
        description: null,
        tools: [
          { name: 'notes.read', effect: 'READ_ONLY', source: { kind: 'code' } },
          { name: 'clock.now', effect: 'READ_ONLY', source: { kind: 'code' } },
        ],
        approvals: { preApproved: [], onDenial: 'endRun' },
      },
      {
        name: 'triager',
        description: 'Finds the ticket and comments on it.',
        tools: [
          { name: 'tickets.search', effect: 'READ_ONLY', source: { kind: 'code' } },
          { name: 'tickets.comment', effect: 'NON_IDEMPOTENT_WRITE', source: { kind: 'code' } },
        ],
        approvals: { preApproved: ['tickets.comment'], onDenial: 'endRun' },
      },
    ]);

    const started = await call<{ runId: string; run: { status: string; answer: string | null } }>('POST', '/runs', { agent: 'triager', input: 'the printer', mode: 'interactive' });
    expect(started.status).toBe(200);
    expect(started.body.run).toMatchObject({ status: 'COMPLETED', answer: 'Commented on T-1' });
    const { runId } = started.body;

    // The steps read model follows the store a little behind: poll it (with a deadline) until it has both tool steps.
    type StepRow = { stepId: string; toolName: string | null; effect: string | null; idempotencyKey: string | null; outcome: string | null };
    const stepsDeadline = Date.now() + scaled(20_000);
    let steps = await call<{ steps?: StepRow[] }>('GET', `/runs/${runId}/steps`);
    const settledTools = (rows: StepRow[] = []): number => rows.filter((step) => step.toolName !== null && step.outcome !== null).length;
    while (settledTools(steps.body.steps) < 2 && Date.now() < stepsDeadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      steps = await call<{ steps?: StepRow[] }>('GET', `/runs/${runId}/steps`);
    }
    const stepRows = steps.body.steps ?? [];
    const write = stepRows.find((step) => step.toolName === 'tickets.comment');
    expect(write).toMatchObject({ effect: 'NON_IDEMPOTENT_WRITE', outcome: 'succeeded' });
    expect(write?.idempotencyKey).toEqual(expect.any(String));
    expect(stepRows.find((step) => step.toolName === 'tickets.search')).toMatchObject({ effect: 'READ_ONLY', outcome: 'succeeded' });

    // The write ran exactly once, given the step's idempotency key.
    const comments = readFileSync(process.env.TICKETS_LEDGER as string, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as unknown);
    expect(comments).toEqual([{ args: { id: 'T-1', text: 'On it' }, idempotencyKey: write?.idempotencyKey, runId, stepId: write?.stepId }]);

    // Its audit is recorded: the review (the read model, polled until it has caught up, and the verdict from the stores) counts it as audited.
    const deadline = Date.now() + scaled(20_000);
    let review: AuditReviewAnswer | undefined;
    while (Date.now() < deadline) {
      review = (await call<AuditReviewAnswer>('GET', `/audit/review?runId=${runId}`)).body;
      if (review.totals.writesAudited === 1) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(review).toMatchObject({ findings: false, totals: { writesAudited: 1, writesWithoutAudit: 0 }, verdict: { findings: false, totals: { writesExecuted: 1, writesAudited: 1 } } });
    expect(review?.writes).toEqual([expect.objectContaining({ stepId: write?.stepId, toolName: 'tickets.comment', idempotencyKey: write?.idempotencyKey })]);
  }, scaled(60_000));

  it("runs an agent of the agents file on a plugin's model provider type and a plugin's tool", async () => {
    await start({ AGENT_LEDGER_PLUGINS: 'tickets.js,models.cjs' });
    const started = await call<{ run: { status: string; answer: string | null } }>('POST', '/runs', { agent: 'note-taker', input: 'go', mode: 'interactive' });
    expect(started.body.run).toMatchObject({ status: 'COMPLETED', answer: 'noted' });
  }, scaled(60_000));

  it('refuses a plugin tool that collides with a built-in before anything is created, naming the file and the tool', async () => {
    writeFileSync(
      join(dir, 'clash.js'),
      `module.exports = ({ Tool, ToolEffect }) => {
  class MyRead { getEffect() { return ToolEffect.READ_ONLY; } async execute() { return ''; } }
  Tool({ name: 'files.read', description: 'Mine.', parameters: { type: 'object' } })(MyRead);
  return { tools: [MyRead] };
};`,
    );
    const config = configFor({ AGENT_LEDGER_PLUGINS: 'tickets.js,clash.js' });
    const refusal = loadServiceDefinitions(config);
    await expect(refusal).rejects.toBeInstanceOf(PluginError);
    await expect(refusal).rejects.toThrow(`plugin ${join(dir, 'clash.js')}: tool "files.read" collides with a built-in tool of the same name`);
  });

  it('refuses an agent of the agents file offered a tool that no plugin provides, naming the agent and the tool', async () => {
    writeFileSync(join(dir, 'agents.yaml'), AGENTS_YAML.replace('[notes.read, clock.now]', '[notes.write]'));
    await expect(loadServiceDefinitions(configFor({ AGENT_LEDGER_PLUGINS: 'models.cjs' }))).rejects.toThrow('agents[0].tools[0] "notes.write" is not a known tool');
    // Without the plugin, its provider type is unknown too.
    writeFileSync(join(dir, 'agents.yaml'), AGENTS_YAML);
    await expect(loadServiceDefinitions(configFor({}))).rejects.toThrow('agents[0].provider.type must be one of scripted, openai, anthropic, not "canned"');
  });
});
