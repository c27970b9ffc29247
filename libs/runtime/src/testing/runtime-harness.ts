import { Test } from '@nestjs/testing';
import type { TestingModule } from '@nestjs/testing';
import type { DeclaresToolEffect, JsonObject, JsonValue, RunEvent, ToolEffect } from '@agent-ledger/domain';
import { foldEvents, createRunDecider, isRunEventType } from '@agent-ledger/domain';
import type { EventStore, RecordedEvent } from '@agent-ledger/event-store';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AuditPlacement, StoreFixture, StoreKind } from './store-fixture';
import { startStores } from './store-fixture';
import type { Clock } from '../clock/clock';
import type { ScriptedRound } from '../agents/agent-definition';
import type { ModelProvider } from '../models/model-provider';
import { ScriptedModelProvider } from '../models/scripted/scripted-model-provider';
import type { AgentTool, ToolContext } from '../tools/agent-tool';
import { Tool } from '../tools/tool.decorator';
import { UserInputRequired } from '../tools/user-input-required';
import type { AgentApprovals } from '../agents/agent-approvals';
import { ToolRegistry } from '../tools/tool-registry';
import type { McpToolOrigin } from '../tools/tool-origin';
import { agentCatalogOf } from '../segment/agent-catalog';
import { ExecutionModule } from '../execution/execution.module';
import type { ExecutionOptions } from '../workers/runtime-options';
import { QueueIndex } from '../queue/queue-index';
import { Reaper } from '../workers/reaper';
import { AuditGapSaga } from '../saga/audit-gap-saga';
import { RunCommandProcessor } from '../persistence/run-command-processor';
import { RunService } from '../bus/run-service';
import { RuntimeMetrics } from '../metrics/runtime-metrics';
import { TOOL_CATALOG } from '../segment/tool-catalog';
import { WorkerPool } from '../workers/worker-pool';
import { auditStreamName, runStreamName } from '../persistence/run-streams';
import { toDomainEvents } from '../persistence/domain-event-codec';
import { scaled } from '../../../../test/support/time-scale';

/** A clock the test moves by hand: no test waits for a real lease to expire. */
export class ManualClock implements Clock {
  constructor(private current = Date.UTC(2026, 0, 1)) {}
  now(): number {
    return this.current;
  }
  advance(ms: number): void {
    this.current += ms;
  }
}

/** One real execution of a test tool, as the tool saw it. */
export interface Execution {
  readonly tool: string;
  readonly runId: string;
  readonly stepId: string;
  readonly idempotencyKey: string;
  readonly attempt: number;
  /** The workspace folder the call was given (`ToolContext.workspaceDir`), when it was given one. */
  readonly workspaceDir?: string;
}

/** A blocked execution: `reached` resolves when a call blocks on it, `release` lets it go on. */
export interface Gate {
  readonly reached: Promise<void>;
  release(): void;
}

/** What test tools do: count executions (outside the product) and, on demand, block or throw. */
export class ToolBehaviour {
  readonly executions: Execution[] = [];
  private readonly gates = new Map<string, { gate: Promise<void>; entered: () => void }>();
  private releases: Array<() => void> = [];
  failWith: Error | null = null;

  /** The next execution of `tool` blocks, after it is counted, until the gate is released. */
  blockNext(tool: string): Gate {
    let release!: () => void;
    let entered!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const reached = new Promise<void>((resolve) => (entered = resolve));
    this.gates.set(tool, { gate, entered });
    this.releases.push(release);
    return { reached, release };
  }

  /** Lets every blocked or armed execution go on (so a failed test still shuts down). */
  releaseAll(): void {
    for (const { entered } of this.gates.values()) entered();
    this.gates.clear();
    for (const release of this.releases) release();
    this.releases = [];
  }

  count(tool: string): number {
    return this.executions.filter((e) => e.tool === tool).length;
  }

  async run(tool: string, context: ToolContext, result: JsonValue): Promise<JsonValue> {
    const { workspaceDir } = context;
    this.executions.push({
      tool,
      runId: context.runId,
      stepId: context.stepId,
      idempotencyKey: context.idempotencyKey,
      attempt: context.attempt,
      ...(workspaceDir === undefined ? {} : { workspaceDir }),
    });
    const blocked = this.gates.get(tool);
    if (blocked !== undefined) {
      this.gates.delete(tool);
      blocked.entered();
      // A blocked call gives up when its signal fires, as a well-behaved tool does.
      await Promise.race([blocked.gate, new Promise<void>((resolve) => context.signal.addEventListener('abort', () => resolve(), { once: true }))]);
      context.signal.throwIfAborted();
    }
    if (this.failWith !== null) throw this.failWith;
    return result;
  }
}

const argumentsSchema = { type: 'object', properties: { value: { type: 'string' } }, additionalProperties: false };

/**
 * Builds the test tools over one behaviour: one per effect class
 * (`test.read`, `test.put`, `test.append`), `test.ask` (asks the user for
 * input) and `test.guarded` (its code requires approval).
 */
export function testTools(behaviour: ToolBehaviour): AgentTool[] {
  @Tool({ name: 'test.read', description: 'Reads (READ_ONLY).', parameters: argumentsSchema })
  class ReadTool implements AgentTool {
    execute(args: JsonObject, context: ToolContext) {
      return behaviour.run('test.read', context, { read: args.value ?? null });
    }
  }
  @Tool({ name: 'test.put', description: 'Puts (IDEMPOTENT_WRITE).', parameters: argumentsSchema, operationDeadlineSeconds: 60 })
  class PutTool implements AgentTool, DeclaresToolEffect {
    getEffect(): ToolEffect {
      return 'IDEMPOTENT_WRITE';
    }
    execute(args: JsonObject, context: ToolContext) {
      return behaviour.run('test.put', context, { put: args.value ?? null });
    }
  }
  @Tool({ name: 'test.append', description: 'Appends (NON_IDEMPOTENT_WRITE).', parameters: argumentsSchema, operationDeadlineSeconds: 60 })
  class AppendTool implements AgentTool, DeclaresToolEffect {
    getEffect(): ToolEffect {
      return 'NON_IDEMPOTENT_WRITE';
    }
    execute(args: JsonObject, context: ToolContext) {
      return behaviour.run('test.append', context, { appended: args.value ?? null });
    }
  }
  @Tool({ name: 'test.ask', description: 'Asks the user (READ_ONLY): the run waits for input.', parameters: argumentsSchema })
  class AskTool implements AgentTool {
    async execute(args: JsonObject, context: ToolContext) {
      if (context.userInput === undefined) {
        behaviour.executions.push({ tool: 'test.ask', runId: context.runId, stepId: context.stepId, idempotencyKey: context.idempotencyKey, attempt: context.attempt });
        throw new UserInputRequired(typeof args.value === 'string' ? args.value : 'Your answer?');
      }
      return behaviour.run('test.ask', context, { answer: context.userInput });
    }
  }
  @Tool({ name: 'test.guarded', description: 'Reads, but its code asks approval for every call (READ_ONLY).', parameters: argumentsSchema, requiresApproval: true })
  class GuardedTool implements AgentTool {
    execute(args: JsonObject, context: ToolContext) {
      return behaviour.run('test.guarded', context, { guarded: args.value ?? null });
    }
  }
  return [new ReadTool(), new PutTool(), new AppendTool(), new AskTool(), new GuardedTool()];
}

/** A scripted agent offering the test tools (by default the three of each effect class). */
export interface TestAgent {
  readonly name: string;
  readonly script: readonly ScriptedRound[];
  readonly tools?: readonly string[];
  readonly maxIterations?: number;
  /** A provider to use instead of the scripted one (e.g. one that fails). */
  readonly provider?: ModelProvider;
  /**
   * The agent's approvals. Unlike a configured agent's default (nothing
   * pre-approved), a test agent pre-approves all its tools unless it says
   * otherwise, so that tests about other things run their writes at once.
   * @default { preApproved: its tools, onDenial: 'endRun' }
   */
  readonly approvals?: Partial<AgentApprovals>;
}

/** Options of {@link startRuntime}. */
export interface RuntimeHarnessOptions {
  readonly agents: readonly TestAgent[];
  /** @default 'sqlite' */
  readonly store?: StoreKind;
  /** Where the audit streams live. @default 'own store' (the audit can fail alone: {@link RuntimeHarness.breakAuditStore}) */
  readonly audit?: AuditPlacement;
  /** @default no workers (concurrency 0), reaper only by hand */
  readonly execution?: ExecutionOptions;
  /** The folder of the SQLite stores (kept after close). @default a fresh temp folder, removed on close */
  readonly storeDir?: string;
  /** The folder of the saga's database (to restart a "process" with the same saga state). @default a fresh temp folder */
  readonly sagaDir?: string;
  /** Reuse the stores of another harness (a second "process" on the same files). */
  readonly sharedWith?: RuntimeHarness;
  /** Tools registered besides the test tools (instances of `@Tool` classes), e.g. a product's own tools. @default none */
  readonly tools?: readonly (AgentTool & object)[];
  /** Tools registered as an MCP server's (`ToolRegistry.registerExternal`), each with its origin. @default none */
  readonly externalTools?: readonly { readonly tool: AgentTool & object; readonly origin: McpToolOrigin }[];
  /** The workspace folder every tool call gets (`ToolContext.workspaceDir`), an absolute path. @default none */
  readonly workspaceDir?: string;
}

/** A Nest testing module with the real execution engine over real SQLite files in a temp folder. */
export interface RuntimeHarness {
  readonly module: TestingModule;
  readonly stores: StoreFixture;
  readonly runStore: EventStore;
  readonly auditStore: EventStore;
  readonly clock: ManualClock;
  readonly behaviour: ToolBehaviour;
  readonly runs: RunService;
  readonly index: QueueIndex;
  readonly processor: RunCommandProcessor;
  readonly workers: WorkerPool;
  readonly reaper: Reaper;
  readonly saga: AuditGapSaga;
  readonly metrics: RuntimeMetrics;
  /** The run's events as stored. */
  runEvents(runId: string): Promise<RunEvent[]>;
  /** The audit stream's events as stored. */
  auditEvents(runId: string): Promise<readonly RecordedEvent[]>;
  /** Makes audit appends fail while run appends work, with the real store; returns the undo. */
  breakAuditStore(): () => void;
  /** The folder of this harness's saga database. */
  readonly sagaDir: string;
  close(): Promise<void>;
}

/** Starts the execution engine on real stores (SQLite files, or protocol-level EventStoreDB servers). */
export async function startRuntime(options: RuntimeHarnessOptions): Promise<RuntimeHarness> {
  const shared = options.sharedWith;
  const stores = shared?.stores ?? (await startStores(options.store ?? 'sqlite', { dir: options.storeDir, audit: options.audit ?? 'own store' }));
  const { runStore, auditStore } = stores.open();
  // Each harness is its own "process": its saga keeps its state in a folder of its own unless one is shared.
  const sagaDir = options.sagaDir ?? mkdtempSync(join(tmpdir(), 'agent-ledger-saga-'));
  const clock = shared?.clock ?? new ManualClock();
  const behaviour = shared?.behaviour ?? new ToolBehaviour();
  const registry = new ToolRegistry();
  for (const tool of testTools(behaviour)) registry.register(tool as AgentTool & object);
  for (const tool of options.tools ?? []) registry.register(tool);
  for (const { tool, origin } of options.externalTools ?? []) registry.registerExternal(tool, origin);
  if (options.workspaceDir !== undefined) registry.useWorkspace(options.workspaceDir);
  const agents = agentCatalogOf(
    options.agents.map((agent) => ({
      definition: {
        name: agent.name,
        instructions: `You are ${agent.name}.`,
        provider: { type: 'scripted', script: agent.script },
        tools: agent.tools ?? ['test.read', 'test.put', 'test.append'],
        maxIterations: agent.maxIterations ?? 20,
        approvals: {
          preApproved: agent.approvals?.preApproved ?? agent.tools ?? ['test.read', 'test.put', 'test.append'],
          onDenial: agent.approvals?.onDenial ?? 'endRun',
        },
      },
      provider: agent.provider ?? new ScriptedModelProvider(agent.script),
    })),
  );
  const module = await Test.createTestingModule({
    imports: [
      ExecutionModule.forRoot({
        runStore,
        auditStore,
        agents,
        tools: { provide: TOOL_CATALOG, useValue: registry },
        clock,
        policy: options.execution?.policy,
        workers: { concurrency: 0, pollIntervalMs: 10, ...options.execution?.workers },
        reaper: { intervalMs: 0, ...options.execution?.reaper },
        auditGapSaga: { checkIntervalMs: 0, gracePeriodMs: 60_000, ...options.execution?.auditGapSaga, databasePath: join(sagaDir, 'audit-gap-saga.sqlite') },
        processors: options.execution?.processors,
      }),
    ],
  }).compile();
  try {
    await module.init();
  } catch (error) {
    // A refused start (stores that do not match the saved state) leaves nothing open.
    await module.close().catch((closeError: unknown) => process.stderr.write(`runtime harness: closing after a refused start failed too: ${String(closeError)}\n`));
    await runStore.close();
    await auditStore.close();
    if (shared === undefined) await stores.close();
    if (options.sagaDir === undefined) rmSync(sagaDir, { recursive: true, force: true });
    throw error;
  }
  const harness: RuntimeHarness = {
    module,
    stores,
    runStore,
    auditStore,
    clock,
    behaviour,
    runs: module.get(RunService),
    index: module.get(QueueIndex),
    processor: module.get(RunCommandProcessor),
    workers: module.get(WorkerPool),
    reaper: module.get(Reaper),
    saga: module.get(AuditGapSaga),
    metrics: module.get(RuntimeMetrics),
    async runEvents(runId) {
      const read = await runStore.readStream(runStreamName(runId));
      return toDomainEvents<RunEvent>(read.events, isRunEventType);
    },
    async auditEvents(runId) {
      return (await auditStore.readStream(auditStreamName(runId))).events;
    },
    breakAuditStore: () => stores.breakAuditStore(),
    sagaDir,
    async close() {
      behaviour.releaseAll();
      await module.close();
      await runStore.close();
      await auditStore.close();
      if (shared === undefined) await stores.close();
      if (options.sagaDir === undefined) rmSync(sagaDir, { recursive: true, force: true });
    },
  };
  return harness;
}

/** The run's state folded from stored events. */
export function stateOf(events: readonly RunEvent[]) {
  return foldEvents(createRunDecider(), events);
}

/** Polls `check` until it returns a value other than undefined, or fails after `timeoutMs`. */
export async function eventually<T>(check: () => Promise<T | undefined> | T | undefined, unscaledTimeoutMs = 10_000, what = 'condition'): Promise<T> {
  const timeoutMs = scaled(unscaledTimeoutMs);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

export type { EventStore };
