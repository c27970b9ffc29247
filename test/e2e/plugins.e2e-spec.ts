/**
 * Plugins in the real process: the service (and the `worker` verb) started
 * with `AGENT_LEDGER_PLUGINS`. A bad plugin is refused at start-up, exit
 * code 3, with a message naming the file and the tool, and the data folder
 * is never created; a good ES module plugin (`.mjs`, loaded with `import()`)
 * serves a run of its agent on its own tools.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCliProcess } from './support/cli-process';
import { entryArgs, serviceProcessEnv } from './support/entry-point';
import type { HttpService } from './support/http-service';
import { request, startHttpService } from './support/http-service';
import { scaled } from '../support/time-scale';

const root = join(__dirname, '..', '..');

/** A plugin in the function form: no package needed beside it. Its write tool forgot to declare its effect. */
const BAD_PLUGIN = `export default ({ Tool, ToolEffect }) => {
  class Lookup { getEffect() { return ToolEffect.READ_ONLY; } async execute() { return 'x'; } }
  Tool({ name: 'crm.lookup', description: 'Looks a customer up.', parameters: { type: 'object' } })(Lookup);
  class Refund { async execute() { return 'refunded'; } }
  Tool({ name: 'crm.refund', description: 'Refunds a customer.', parameters: { type: 'object' } })(Refund);
  return { tools: [Lookup, Refund] };
};
`;

/** An ES module plugin with a read and a non-idempotent write (recording each call in a file) and an agent using them. */
const GOOD_PLUGIN = `import { appendFileSync } from 'node:fs';
export default ({ Tool, ToolEffect, definePlugin }) => {
  class Lookup {
    getEffect() { return ToolEffect.READ_ONLY; }
    async execute(args) { return { customer: args.id, balance: 12 }; }
  }
  Tool({ name: 'crm.lookup', description: 'Looks a customer up.', parameters: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } })(Lookup);
  class Refund {
    getEffect() { return ToolEffect.NON_IDEMPOTENT_WRITE; }
    async execute(args, context) {
      appendFileSync(process.env.CRM_LEDGER, JSON.stringify({ args, idempotencyKey: context.idempotencyKey }) + '\\n');
      return { refunded: args.amount };
    }
  }
  Tool({ name: 'crm.refund', description: 'Refunds a customer.', parameters: { type: 'object', properties: { id: { type: 'string' }, amount: { type: 'number' } }, required: ['id', 'amount'] } })(Refund);
  return definePlugin({
    tools: [Lookup, Refund],
    agents: [{
      name: 'refunder',
      instructions: 'Refund the customer.',
      tools: ['crm.lookup', 'crm.refund'],
      approvals: { preApproved: ['crm.refund'] },
      provider: { type: 'scripted', script: [
        { toolCalls: [{ tool: 'crm.lookup', arguments: { id: 'C-7' } }] },
        { toolCalls: [{ tool: 'crm.refund', arguments: { id: 'C-7', amount: 12 } }] },
        { final: 'Refunded 12' },
      ] },
    }],
  });
};
`;

const AGENTS_YAML = `agents:
  - name: clock
    instructions: Tell the time.
    tools: [clock.now]
    provider: { type: scripted, script: [ { final: tick } ] }
`;

describe('plugins in the real process (e2e)', () => {
  let dir: string;
  let service: HttpService | undefined;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'agent-ledger-plugins-e2e-'));
    writeFileSync(join(dir, 'agents.yaml'), AGENTS_YAML);
  });

  afterEach(async () => {
    await service?.stop();
    service = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a plugin whose tool declares no effect: exit code 3, the file and the tool named, the data folder never created', async () => {
    const plugin = join(dir, 'crm-tools.mjs');
    writeFileSync(plugin, BAD_PLUGIN);
    const dataDir = join(dir, 'data');
    const child = spawn(process.execPath, [...entryArgs('service')], {
      cwd: root,
      env: serviceProcessEnv({
        AGENT_LEDGER_DATA_DIR: dataDir,
        AGENTS_CONFIG: join(dir, 'agents.yaml'),
        AGENT_LEDGER_PLUGINS: plugin,
      }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout?.resume();
    const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
    expect(code).toBe(3);
    expect(stderr).toContain(`plugin ${plugin}: tool "crm.refund" (tools[1], class Refund) declares no effect: implement getEffect()`);
    expect(stderr).not.toContain('crm.lookup');
    expect(existsSync(dataDir)).toBe(false);
  }, scaled(90_000));

  it('refuses the same plugin in the worker verb, exit code 3, nothing created', async () => {
    const plugin = join(dir, 'crm-tools.mjs');
    writeFileSync(plugin, BAD_PLUGIN);
    const dataDir = join(dir, 'data');
    const result = await runCliProcess(['worker'], { AGENT_LEDGER_DATA_DIR: dataDir, AGENTS_CONFIG: join(dir, 'agents.yaml'), AGENT_LEDGER_PLUGINS: plugin });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain(`plugin ${plugin}: tool "crm.refund" (tools[1], class Refund) declares no effect`);
    expect(existsSync(dataDir)).toBe(false);
  }, scaled(90_000));

  it('serves a run of an ES module plugin agent on its own read and write tools, listed with their effects', async () => {
    const plugin = join(dir, 'crm-tools.mjs');
    writeFileSync(plugin, GOOD_PLUGIN);
    const ledger = join(dir, 'refunds.jsonl');
    writeFileSync(ledger, '');
    service = await startHttpService({ agentsYaml: AGENTS_YAML, env: { AGENT_LEDGER_PLUGINS: plugin, CRM_LEDGER: ledger, WORKER_CONCURRENCY: '1' } });
    expect(service.output()).toContain(`plugins: ${plugin} (2 tools, 1 agent, 0 model providers)`);

    const agents = await request<{ agents: { name: string; tools: unknown[] }[] }>(service.baseUrl, 'GET', '/agents');
    expect(agents.body.agents.find((agent) => agent.name === 'refunder')?.tools).toEqual([
      { name: 'crm.lookup', effect: 'READ_ONLY', source: { kind: 'code' } },
      { name: 'crm.refund', effect: 'NON_IDEMPOTENT_WRITE', source: { kind: 'code' } },
    ]);

    const started = await request<{ runId: string; run: { status: string; answer: string } }>(service.baseUrl, 'POST', '/runs', { agent: 'refunder', input: 'C-7', mode: 'interactive' });
    expect(started.body.run).toMatchObject({ status: 'COMPLETED', answer: 'Refunded 12' });
    const refunds = readFileSync(ledger, 'utf8').trim().split('\n');
    expect(refunds).toHaveLength(1);
    expect(JSON.parse(refunds[0] as string)).toEqual({ args: { id: 'C-7', amount: 12 }, idempotencyKey: expect.stringContaining(started.body.runId) });
  }, scaled(120_000));
});
