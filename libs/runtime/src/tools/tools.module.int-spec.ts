import { mkdtemp, readFile, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Global, Inject, Injectable, Module, Scope } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { TestingModule } from '@nestjs/testing';
import { ConfigurationError, ToolEffect } from '@agent-ledger/domain';
import type { DeclaresToolEffect, JsonObject, JsonValue } from '@agent-ledger/domain';
import { CLOCK } from '../clock/clock';
import type { Clock } from '../clock/clock';
import type { AgentTool, ToolContext } from './agent-tool';
import { Tool } from './tool.decorator';
import { ToolRegistry } from './tool-registry';
import { ToolsModule } from './tools.module';
import { UserInputRequired } from './user-input-required';

/** A configuration object a tool reads; what it says about effects must not matter. */
const TICKETS_CONFIG = Symbol('TicketsConfig');
interface TicketsConfig {
  effect: ToolEffect;
}

@Tool({
  name: 'tickets.close',
  description: 'Closes a ticket.',
  parameters: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'], additionalProperties: false },
  dataClass: 'confidential',
})
class CloseTicketTool implements AgentTool, DeclaresToolEffect {
  readonly calls: string[] = [];
  getEffect(): ToolEffect {
    return ToolEffect.NON_IDEMPOTENT_WRITE;
  }
  async execute(args: JsonObject, context: ToolContext): Promise<JsonValue> {
    this.calls.push(`${String(args['id'])}@${context.idempotencyKey}`);
    return { closed: args['id'] ?? null };
  }
}

@Module({ providers: [CloseTicketTool] })
class TicketsModule {}

@Tool({ name: 'tickets.search', description: 'Searches tickets.', parameters: { type: 'object' } })
class SearchTicketsTool implements AgentTool {
  async execute(): Promise<JsonValue> {
    return [];
  }
}

/** Reads its effect from injected configuration: the registry must ask it once, at start, and never again. */
@Tool({ name: 'tickets.reopen', description: 'Reopens a ticket.', parameters: { type: 'object' } })
class ReopenTicketTool implements AgentTool, DeclaresToolEffect {
  constructor(@Inject(TICKETS_CONFIG) private readonly config: TicketsConfig) {}
  getEffect(): ToolEffect {
    return this.config.effect;
  }
  async execute(): Promise<JsonValue> {
    return null;
  }
}

/** Not a tool: a provider that merely carries effect-looking data. */
@Injectable()
class EffectOverrides {
  readonly 'tickets.close' = { effect: ToolEffect.READ_ONLY };
  readonly 'files.append' = ToolEffect.READ_ONLY;
}

const fixedClock: Clock = { now: () => Date.UTC(2026, 6, 23, 12, 0, 0) };

@Global()
@Module({ providers: [{ provide: CLOCK, useValue: fixedClock }], exports: [CLOCK] })
class FixedClockModule {}

const context: ToolContext = { runId: 'run-1', stepId: 'step-1', idempotencyKey: 'key-1', attempt: 1, signal: new AbortController().signal };

describe('ToolsModule (Nest)', () => {
  let workspaceDir: string;
  let app: TestingModule | undefined;

  beforeEach(async () => {
    workspaceDir = await mkdtemp(path.join(tmpdir(), 'agent-ledger-tools-'));
  });

  afterEach(async () => {
    await app?.close();
    app = undefined;
    await rm(workspaceDir, { recursive: true, force: true });
  });

  async function start(imports: unknown[], providers: unknown[] = []): Promise<ToolRegistry> {
    const compiled = await Test.createTestingModule({ imports: imports as never[], providers: providers as never[] }).compile();
    // A context whose init failed rethrows that failure from close(): only keep one that started.
    await compiled.init();
    app = compiled;
    return compiled.get(ToolRegistry);
  }

  it('discovers a @Tool provider of another module, with the effect its code declares', async () => {
    const registry = await start([ToolsModule.forRoot(), TicketsModule]);
    const registered = registry.get('tickets.close');
    expect(registered?.effect).toBe('NON_IDEMPOTENT_WRITE');
    expect(registered?.operationDeadlineSeconds).toBe(300);
    expect(registered?.dataClass).toBe('confidential');
    expect(registered?.tool).toBe(app?.get(CloseTicketTool));
    expect(registry.names()).toEqual(['clock.now', 'tickets.close', 'user.ask']);
    await expect(registered?.tool.execute({ id: 'T-1' }, context)).resolves.toEqual({ closed: 'T-1' });
    expect(app?.get(CloseTicketTool).calls).toEqual(['T-1@key-1']);
  });

  it('provides the tool classes listed in the options', async () => {
    const registry = await start([ToolsModule.forRoot({ tools: [SearchTicketsTool], builtins: { clock: false, user: false } })]);
    expect(registry.names()).toEqual(['tickets.search']);
    expect(registry.effectFor('tickets.search')).toBe('READ_ONLY');
    expect(registry.get('tickets.search')?.operationDeadlineSeconds).toBeNull();
  });

  it('provides the file tools with the effects their code declares, confined to the folder', async () => {
    const registry = await start([ToolsModule.forRoot({ builtins: { files: { workspaceDir, maxFileBytes: 32 } } })]);
    expect(Object.fromEntries(registry.names().map((name) => [name, registry.effectFor(name)]))).toEqual({
      'clock.now': 'READ_ONLY',
      'files.append': 'NON_IDEMPOTENT_WRITE',
      'files.list': 'READ_ONLY',
      'files.read': 'READ_ONLY',
      'files.write': 'IDEMPOTENT_WRITE',
      'user.ask': 'READ_ONLY',
    });
    expect(registry.get('files.write')?.operationDeadlineSeconds).toBe(60);
    const write = registry.get('files.write')?.tool;
    await write?.execute({ path: 'a.txt', content: 'hello' }, context);
    expect(await readFile(path.join(workspaceDir, 'a.txt'), 'utf8')).toBe('hello');
    await expect(write?.execute({ path: 'b.txt', content: 'x'.repeat(33) }, context)).rejects.toMatchObject({ code: 'FILE_TOO_LARGE' });
    await expect(registry.get('files.read')?.tool.execute({ path: '../a.txt' }, context)).rejects.toMatchObject({ code: 'WORKSPACE_PATH_REFUSED' });
  });

  it("gives the file tools' folder, its real path, as the workspace of every tool call; none without the file tools", async () => {
    const registry = await start([ToolsModule.forRoot({ builtins: { files: { workspaceDir } } })]);
    expect(registry.workspaceDir).toBe(await realpath(workspaceDir));
    await app?.close();
    expect((await start([ToolsModule.forRoot()])).workspaceDir).toBeUndefined();
  });

  it('validates arguments against the discovered schema', async () => {
    const registry = await start([ToolsModule.forRoot({ builtins: { files: { workspaceDir } } }), TicketsModule]);
    expect(registry.validateArguments('tickets.close', { id: 7 })).toEqual({ ok: false, errors: ['arguments.id must be string'] });
    expect(registry.validateArguments('files.write', { path: 'a.txt' })).toEqual({ ok: false, errors: ['arguments.content is required'] });
    expect(registry.describe(['files.read', 'tickets.close']).map((description) => description.name)).toEqual(['files.read', 'tickets.close']);
  });

  it('offers no tools beyond the clock and user.ask by default, and none when both are off', async () => {
    expect((await start([ToolsModule.forRoot()])).names()).toEqual(['clock.now', 'user.ask']);
    await app?.close();
    expect((await start([ToolsModule.forRoot({ builtins: { clock: false } })])).names()).toEqual(['user.ask']);
    await app?.close();
    expect((await start([ToolsModule.forRoot({ builtins: { clock: false, user: false } })])).names()).toEqual([]);
  });

  describe('user.ask', () => {
    it('is READ_ONLY, personal, without deadline nor a code-declared approval', async () => {
      const registry = await start([ToolsModule.forRoot()]);
      expect(registry.get('user.ask')).toMatchObject({ effect: 'READ_ONLY', dataClass: 'personal', operationDeadlineSeconds: null, requiresApproval: false });
      expect(registry.describe(['user.ask'])).toEqual([
        {
          name: 'user.ask',
          description: 'Asks the user a question and returns the answer they submit',
          parameters: {
            type: 'object',
            properties: { question: { type: 'string', minLength: 1, maxLength: 2000 } },
            required: ['question'],
            additionalProperties: false,
          },
        },
      ]);
    });

    it('asks (UserInputRequired) until input is submitted, then returns the question and the answer', async () => {
      const registry = await start([ToolsModule.forRoot()]);
      const tool = registry.get('user.ask')?.tool;
      await expect(tool?.execute({ question: 'Which file?' }, context)).rejects.toEqual(new UserInputRequired('Which file?'));
      await expect(tool?.execute({ question: 'Which file?' }, { ...context, userInput: 'notes.txt' })).resolves.toEqual({
        question: 'Which file?',
        answer: 'notes.txt',
      });
    });

    it('refuses a question that is missing, empty or too long, as an error result', async () => {
      const registry = await start([ToolsModule.forRoot()]);
      expect(registry.validateArguments('user.ask', {})).toEqual({ ok: false, errors: ['arguments.question is required'] });
      expect(registry.validateArguments('user.ask', { question: '' }).ok).toBe(false);
      expect(registry.validateArguments('user.ask', { question: 'x'.repeat(2001) }).ok).toBe(false);
      expect(registry.validateArguments('user.ask', { question: 'Which?', answer: 'x' }).ok).toBe(false);
      expect(registry.validateArguments('user.ask', { question: 'x'.repeat(2000) })).toEqual({ ok: true, args: { question: 'x'.repeat(2000) } });
    });
  });

  describe('clock.now', () => {
    it('reads the injected CLOCK', async () => {
      const registry = await start([FixedClockModule, ToolsModule.forRoot()]);
      await expect(registry.get('clock.now')?.tool.execute({}, context)).resolves.toEqual({
        iso: '2026-07-23T12:00:00.000Z',
        epochMillis: Date.UTC(2026, 6, 23, 12, 0, 0),
      });
    });

    it('falls back to the system clock without one', async () => {
      const registry = await start([ToolsModule.forRoot()]);
      const before = Date.now();
      const now = (await registry.get('clock.now')?.tool.execute({}, context)) as { epochMillis: number };
      expect(now.epochMillis).toBeGreaterThanOrEqual(before);
      expect(now.epochMillis).toBeLessThanOrEqual(Date.now());
    });
  });

  describe('refuses to start', () => {
    it('when two modules provide the same tool (two tools of one name)', async () => {
      @Module({ providers: [CloseTicketTool] })
      class OtherTicketsModule {}
      await expect(start([ToolsModule.forRoot(), TicketsModule, OtherTicketsModule])).rejects.toThrow(/Two tools are named "tickets.close"/);
    });

    it('when a tool is request-scoped (its effect must be read once, from one instance)', async () => {
      @Tool({ name: 'scoped', description: 'Request-scoped.', parameters: { type: 'object' } })
      class ScopedTool {
        async execute(): Promise<JsonValue> {
          return null;
        }
      }
      Injectable({ scope: Scope.REQUEST })(ScopedTool);
      const started = start([ToolsModule.forRoot()], [ScopedTool]);
      await expect(started).rejects.toBeInstanceOf(ConfigurationError);
      await expect(started).rejects.toThrow(/scoped must be a singleton/);
    });

    it('when the workspace folder does not exist, naming the option', async () => {
      await expect(start([ToolsModule.forRoot({ builtins: { files: { workspaceDir: path.join(workspaceDir, 'missing') } } })])).rejects.toThrow(
        /^ToolsModule\.forRoot\.builtins\.files\.workspaceDir ".*missing" does not exist$/,
      );
    });
  });

  describe('no configuration changes an effect', () => {
    it('refuses effect options before anything starts', () => {
      expect(() => ToolsModule.forRoot({ toolEffects: { 'tickets.close': 'READ_ONLY' } } as never)).toThrow(/DeclaresToolEffect/);
      expect(() => ToolsModule.forRoot({ builtins: { files: { workspaceDir, effect: 'READ_ONLY' } } } as never)).toThrow(/DeclaresToolEffect/);
    });

    it('ignores effect-looking data among the providers', async () => {
      const registry = await start([ToolsModule.forRoot({ builtins: { files: { workspaceDir } } }), TicketsModule], [EffectOverrides]);
      expect(registry.effectFor('tickets.close')).toBe('NON_IDEMPOTENT_WRITE');
      expect(registry.effectFor('files.append')).toBe('NON_IDEMPOTENT_WRITE');
    });

    it('reads a tool\'s declaration once, at start: changing the configuration it reads afterwards changes nothing', async () => {
      const config: TicketsConfig = { effect: ToolEffect.IDEMPOTENT_WRITE };
      // Tools listed in the options are resolved in the tools module: their dependencies must be global.
      const configModule = { module: class TicketsConfigModule {}, global: true, providers: [{ provide: TICKETS_CONFIG, useValue: config }], exports: [TICKETS_CONFIG] };
      const registry = await start([configModule, ToolsModule.forRoot({ tools: [ReopenTicketTool] })]);
      expect(registry.effectFor('tickets.reopen')).toBe('IDEMPOTENT_WRITE');
      config.effect = ToolEffect.READ_ONLY;
      expect(registry.effectFor('tickets.reopen')).toBe('IDEMPOTENT_WRITE');
      expect(registry.get('tickets.reopen')?.effect).toBe('IDEMPOTENT_WRITE');
      expect(registry.get('tickets.reopen')?.operationDeadlineSeconds).toBe(300);
    });
  });
});
