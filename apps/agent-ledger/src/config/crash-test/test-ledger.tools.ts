import { closeSync, fsyncSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DynamicModule } from '@nestjs/common';
import { Inject, Module } from '@nestjs/common';
import { CrashPoint, crashPoint } from '@agent-ledger/crash-points';
import type { DeclaresToolEffect, JsonObject } from '@agent-ledger/domain';
import { ToolEffect } from '@agent-ledger/domain';
import type { AgentTool, ToolContext } from '@agent-ledger/runtime';
import { Tool } from '@agent-ledger/runtime';

/** Injection token of the ledger file's path (`AGENT_LEDGER_TEST_LEDGER`). */
export const TEST_LEDGER_PATH = Symbol('agent-ledger:TestLedgerPath');

/** One line of the execution ledger: one real execution of a `ledger.*` tool. */
export interface LedgerLine {
  readonly tool: string;
  readonly runId: string;
  readonly stepId: string;
  readonly idempotencyKey: string;
  readonly attempt: number;
  readonly pid: number;
  /** ms since the epoch, when the line was written. */
  readonly at: number;
  /** The call's `value` argument, or null. */
  readonly value: string | null;
}

/**
 * The arguments of every `ledger.*` tool (checked against their schema):
 * `value` (any text, written in the line) and `holdMs` (milliseconds to stay
 * in the call after the line is written, to widen the window of a random
 * kill; default 0).
 */
export type LedgerArguments = JsonObject;

const PARAMETERS = {
  type: 'object',
  properties: {
    value: { type: 'string', maxLength: 200, description: 'Any text, written in the ledger line' },
    holdMs: { type: 'integer', minimum: 0, maximum: 5000, description: 'Milliseconds to stay in the call after writing the line' },
  },
  additionalProperties: false,
} as const;

/**
 * Appends the line of this execution to the ledger, durably (fsync), before
 * the tool returns; then marks the crash point `duringToolCall`, then holds.
 */
async function execute(path: string, tool: string, effect: ToolEffect, args: LedgerArguments, context: ToolContext): Promise<JsonObject> {
  const line: LedgerLine = {
    tool,
    runId: context.runId,
    stepId: context.stepId,
    idempotencyKey: context.idempotencyKey,
    attempt: context.attempt,
    pid: process.pid,
    at: Date.now(),
    value: typeof args['value'] === 'string' ? args['value'] : null,
  };
  const fd = openSync(path, 'a');
  try {
    writeSync(fd, `${JSON.stringify(line)}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  await crashPoint(CrashPoint.DURING_TOOL_CALL, { runId: context.runId, stepId: context.stepId, effect });
  const holdMs = typeof args['holdMs'] === 'number' ? args['holdMs'] : 0;
  if (holdMs > 0 && !context.signal.aborted) {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, holdMs);
      function done() {
        clearTimeout(timer);
        context.signal.removeEventListener('abort', done);
        resolve();
      }
      context.signal.addEventListener('abort', done, { once: true });
    });
  }
  return { recorded: true, tool, attempt: context.attempt, pid: process.pid };
}

/** TEST ONLY. `ledger.read` (READ_ONLY): records its execution in the ledger file. */
@Tool({ name: 'ledger.read', description: 'TEST ONLY: records this execution in the crash tests ledger (a read).', parameters: PARAMETERS })
export class LedgerReadTool implements AgentTool<LedgerArguments> {
  constructor(@Inject(TEST_LEDGER_PATH) private readonly path: string) {}

  execute(args: LedgerArguments, context: ToolContext): Promise<JsonObject> {
    return execute(this.path, 'ledger.read', ToolEffect.READ_ONLY, args, context);
  }
}

/** TEST ONLY. `ledger.put` (IDEMPOTENT_WRITE): records its execution in the ledger file. */
@Tool({
  name: 'ledger.put',
  description: 'TEST ONLY: records this execution in the crash tests ledger (an idempotent write).',
  parameters: PARAMETERS,
  operationDeadlineSeconds: 5,
})
export class LedgerPutTool implements AgentTool<LedgerArguments>, DeclaresToolEffect {
  constructor(@Inject(TEST_LEDGER_PATH) private readonly path: string) {}

  getEffect(): ToolEffect {
    return ToolEffect.IDEMPOTENT_WRITE;
  }

  execute(args: LedgerArguments, context: ToolContext): Promise<JsonObject> {
    return execute(this.path, 'ledger.put', ToolEffect.IDEMPOTENT_WRITE, args, context);
  }
}

/** TEST ONLY. `ledger.append` (NON_IDEMPOTENT_WRITE): records its execution in the ledger file. */
@Tool({
  name: 'ledger.append',
  description: 'TEST ONLY: records this execution in the crash tests ledger (a non-idempotent write).',
  parameters: PARAMETERS,
  operationDeadlineSeconds: 5,
})
export class LedgerAppendTool implements AgentTool<LedgerArguments>, DeclaresToolEffect {
  constructor(@Inject(TEST_LEDGER_PATH) private readonly path: string) {}

  getEffect(): ToolEffect {
    return ToolEffect.NON_IDEMPOTENT_WRITE;
  }

  execute(args: LedgerArguments, context: ToolContext): Promise<JsonObject> {
    return execute(this.path, 'ledger.append', ToolEffect.NON_IDEMPOTENT_WRITE, args, context);
  }
}

/** The names of the test tools. */
export const TEST_LEDGER_TOOLS = ['ledger.read', 'ledger.put', 'ledger.append'] as const;

/**
 * TEST ONLY (`AGENT_LEDGER_TEST_LEDGER`). Provides the `ledger.*` tools; the
 * tools module finds them as it finds any `@Tool` provider of the application.
 */
@Module({})
export class TestLedgerModule {
  static forRoot(path: string): DynamicModule {
    mkdirSync(dirname(path), { recursive: true });
    return {
      module: TestLedgerModule,
      providers: [{ provide: TEST_LEDGER_PATH, useValue: path }, LedgerReadTool, LedgerPutTool, LedgerAppendTool],
    };
  }
}

/** The modules of the test settings, for the service's and the worker's root modules: none unless `AGENT_LEDGER_TEST_LEDGER` is set. */
export function testLedgerImports(testLedgerPath: string | null): DynamicModule[] {
  return testLedgerPath === null ? [] : [TestLedgerModule.forRoot(testLedgerPath)];
}
