/**
 * Hostile tool calls through real runs: scripted agents whose rounds are
 * file-tool calls drawn from the same arbitraries as the tool fuzz (schema
 * violations, traversal, links, long paths, sizes around the limit), run by
 * the whole runtime (`AgentLedgerModule` with the built-in file tools on the
 * fixture's workspace, the embedded store in a temp folder), interactively.
 *
 * - every run completes: a bad call is an error result for the model, never
 *   the end of the run;
 * - each call is recorded as a `ToolExecuted`: `INVALID_ARGUMENTS` exactly
 *   when the registry refuses its arguments, otherwise a success inside the
 *   workspace or a file tool's refusal (`clientError`);
 * - nothing outside the workspace is written, and no recorded event carries
 *   the sentinel's secret;
 * - a model response too large (or too deeply nested) for the store fails its
 *   run before any call executes: nothing is written.
 *
 * Budget: `FUZZ_RUNS` / 5 calls (default 500), `FUZZ_SEED` replays.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Test } from '@nestjs/testing';
import type { TestingModule } from '@nestjs/testing';
import fc from 'fast-check';
import type { EventStore } from '@agent-ledger/event-store';
import { SqliteEventStore } from '@agent-ledger/event-store';
import type { AgentDefinition, ScriptedRound } from '@agent-ledger/runtime';
import { AgentLedgerModule } from '@agent-ledger/module';
import { escapeScriptText, RunService, ToolRegistry } from '@agent-ledger/runtime';
import type { FileTool, ToolCall } from './support/tool-arbitraries';
import { abbreviate, FILE_TOOLS, toolCall } from './support/tool-arbitraries';
import type { WorkspaceFixture } from './support/workspace-fixture';
import { makeWorkspaceFixture } from './support/workspace-fixture';
import { scaled } from '../support/time-scale';

const CALLS = Math.max(100, Math.round(Number(process.env.FUZZ_RUNS ?? 2500) / 5));
const SEED = process.env.FUZZ_SEED === undefined ? 20_260_101 : Number(process.env.FUZZ_SEED);
const MAX_FILE_BYTES = 4096;
const ROUNDS_PER_AGENT = 15;
const CALLS_PER_ROUND = 3;
/** A round's calls stay well under the store's 1 MiB event (the too-large case has a test of its own). */
const MAX_CALL_JSON = 64 * 1024;
const REFUSALS = new Set(['WORKSPACE_PATH_REFUSED', 'WORKSPACE_ENTRY', 'FILE_TOO_LARGE']);

interface RecordedCall {
  readonly round: number;
  readonly callIndex: number;
  readonly toolName: string;
  readonly outcome: 'succeeded' | 'failed';
  readonly result: unknown;
  readonly error: { readonly code?: string; readonly failureClass: string; readonly message: string } | null;
}

function agentOf(name: string, rounds: readonly ScriptedRound[]): AgentDefinition {
  return {
    name,
    instructions: 'Do what the script says.',
    provider: { type: 'scripted', script: [...rounds, { final: `${name} is done` }] },
    tools: [...FILE_TOOLS],
    maxIterations: 20,
    approvals: { preApproved: ['files.write', 'files.append'], onDenial: 'endRun' },
  };
}

function roundOf(calls: readonly ToolCall[]): ScriptedRound {
  return { toolCalls: calls.map((call) => ({ tool: call.tool, arguments: literally(call.arguments) as Readonly<Record<string, unknown>> })) };
}

/** The arguments with every string escaped, so that a `{{` in them reaches the tool as it is (not read as a script placeholder). */
function literally(value: unknown): unknown {
  if (typeof value === 'string') return escapeScriptText(value);
  if (Array.isArray(value)) return value.map(literally);
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([key, child]) => [key, literally(child)]));
  return value;
}

describe('hostile file-tool calls through real runs (fuzz)', () => {
  jest.setTimeout(scaled(300_000));
  let fixture: WorkspaceFixture;
  let storeDir: string;
  let store: EventStore;
  let module: TestingModule;
  let runs: RunService;
  let registry: ToolRegistry;
  const hostile: ToolCall[][] = [];
  const tally = new Map<string, number>();

  beforeAll(async () => {
    fixture = makeWorkspaceFixture(MAX_FILE_BYTES);
    storeDir = mkdtempSync(join(tmpdir(), 'agent-ledger-fuzz-run-'));
    store = SqliteEventStore.open({ path: join(storeDir, 'agent-ledger.sqlite') });
    const calls = fc.sample(toolCall(fixture.base, MAX_FILE_BYTES), { numRuns: CALLS * 2, seed: SEED }).filter((call) => (JSON.stringify(call.arguments) ?? '').length <= MAX_CALL_JSON).slice(0, CALLS);
    for (let i = 0; i < calls.length; i += ROUNDS_PER_AGENT * CALLS_PER_ROUND) hostile.push(calls.slice(i, i + ROUNDS_PER_AGENT * CALLS_PER_ROUND));
    const agents = hostile.map((agentCalls, index) => {
      const rounds: ScriptedRound[] = [];
      for (let i = 0; i < agentCalls.length; i += CALLS_PER_ROUND) rounds.push(roundOf(agentCalls.slice(i, i + CALLS_PER_ROUND)));
      return agentOf(`hostile-${index}`, rounds);
    });
    const tooLarge = agentOf('too-large', [roundOf([{ tool: 'files.write', arguments: { path: 'large.txt', content: 'L'.repeat(2 * 1024 * 1024) } }])]);
    let nested: unknown = 'x';
    for (let i = 0; i < 300; i++) nested = [nested];
    const tooDeep = agentOf('too-deep', [roundOf([{ tool: 'files.write', arguments: { path: 'deep-args.txt', content: 'x', extra: nested } }])]);
    module = await Test.createTestingModule({
      imports: [
        AgentLedgerModule.forRoot({
          store,
          agents: [...agents, tooLarge, tooDeep],
          tools: { builtins: { files: { workspaceDir: fixture.root, maxFileBytes: MAX_FILE_BYTES }, clock: false, user: false } },
          workers: { concurrency: 0 },
          reaper: { intervalMs: 0 },
          auditGapSaga: { databasePath: join(storeDir, 'audit-gap-saga.sqlite'), checkIntervalMs: 0 },
        }),
      ],
    }).compile();
    // The two runs that fail on purpose log their segment's failure; the assertions say what matters.
    module.useLogger(false);
    await module.init();
    runs = module.get(RunService);
    registry = module.get(ToolRegistry);
  });

  afterAll(async () => {
    await module?.close();
    await store?.close();
    if (storeDir !== undefined) rmSync(storeDir, { recursive: true, force: true });
    fixture?.close();
    const shown = [...tally.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([k, n]) => `${k}: ${n}`).join(', ');
    process.stdout.write(`File-tool run fuzz: ${hostile.flat().length} calls in ${hostile.length} runs (seed ${SEED}); ${shown}\n`);
  });

  async function recordedCalls(runId: string): Promise<RecordedCall[]> {
    const { events } = await store.readStream(`run-${runId}`);
    return events.filter((e) => e.type === 'ToolExecuted').map((e) => e.data as unknown as RecordedCall);
  }

  async function storedText(runId: string): Promise<string> {
    const [run, audit] = await Promise.all([store.readStream(`run-${runId}`), store.readStream(`audit-${runId}`)]);
    return JSON.stringify([...run.events, ...audit.events].map((e) => e.data));
  }

  it('records every hostile call as an error result or a confined success, completes every run, and writes nothing outside', async () => {
    expect(hostile.flat().length).toBeGreaterThanOrEqual(Math.min(CALLS, 100));
    for (const [index, agentCalls] of hostile.entries()) {
      const { runId, state, segment } = await runs.runInteractive({ requestedBy: { kind: 'bus', id: 'test' }, agent: `hostile-${index}`, input: 'go' });
      expect({ agent: `hostile-${index}`, segment, status: state.status, reason: state.settlement?.reason ?? null }).toEqual({ agent: `hostile-${index}`, segment: 'settled', status: 'COMPLETED', reason: 'COMPLETED' });
      const recorded = await recordedCalls(runId);
      expect(recorded).toHaveLength(agentCalls.length);
      for (const [position, call] of agentCalls.entries()) {
        const round = Math.floor(position / CALLS_PER_ROUND);
        const callIndex = position % CALLS_PER_ROUND;
        const step = recorded.find((r) => r.round === round && r.callIndex === callIndex);
        const where = `${call.tool} ${abbreviate(call.arguments)} (run ${runId}, round ${round}, call ${callIndex})`;
        if (step === undefined) throw new Error(`no ToolExecuted for ${where}`);
        expect(step.toolName).toBe(call.tool);
        const check = registry.validateArguments(call.tool as FileTool, call.arguments);
        const code = step.outcome === 'succeeded' ? 'succeeded' : (step.error?.code ?? 'no code');
        tally.set(`${call.tool} ${code}`, (tally.get(`${call.tool} ${code}`) ?? 0) + 1);
        if (!check.ok) {
          expect({ where, outcome: step.outcome, code, failureClass: step.error?.failureClass }).toEqual({ where, outcome: 'failed', code: 'INVALID_ARGUMENTS', failureClass: 'clientError' });
          expect(step.error?.message).toBe(check.errors.join('; '));
        } else if (step.outcome === 'failed') {
          expect({ where, refusal: REFUSALS.has(code), failureClass: step.error?.failureClass }).toEqual({ where, refusal: true, failureClass: 'clientError' });
        }
      }
      expect(await storedText(runId)).not.toContain(fixture.secret);
      expect(fixture.outsideViolations()).toEqual([]);
    }
  });

  it('fails a run whose model response is too large for the store before any call executes', async () => {
    const { state } = await runs.runInteractive({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'too-large', input: 'go' });
    expect(state.status).toBe('FAILED');
    expect(readdirSync(fixture.root)).not.toContain('large.txt');
    expect(await recordedCalls(state.runId as string)).toEqual([]);
    expect(fixture.outsideViolations()).toEqual([]);
  });

  it('fails a run whose model response nests its arguments deeper than the store records, before any call executes', async () => {
    const { state } = await runs.runInteractive({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'too-deep', input: 'go' });
    expect(state.status).toBe('FAILED');
    expect(readdirSync(fixture.root)).not.toContain('deep-args.txt');
    expect(await recordedCalls(state.runId as string)).toEqual([]);
    expect(fixture.outsideViolations()).toEqual([]);
  });
});
