/**
 * Every scripted agent the product ships or writes answers from what its run
 * recorded, also when a tool fails or a person denies a write: the starter
 * of `agent-ledger init` (its agents.yaml, with its own notes tools, compiled
 * from the src/tools.ts it writes), every agent file in config/, and every
 * scripted agent or scripted provider in a YAML block of README.md and
 * docs/*.md (a provider alone is an agent offered the tools its script calls,
 * with a configured agent's default approvals).
 *
 * Each agent runs on the runtime, with the real tools in a workspace of
 * their own (notes.txt seeded as the service seeds it):
 * - every call succeeding and every approval granted: the run completes;
 * - each tool it calls failing (EACCES, every call of that tool, in that run
 *   only; approvals granted);
 * - each write that waits for a person as shipped, denied (its own `onDenial`);
 * - each write it calls, denied with `onDenial: tellModel` (pre-approved or
 *   not as shipped: what a person gets by removing it from `preApproved`).
 *
 * Then its answer is compared with its events. A completed run whose events
 * record a failed call must say so (the error recorded, or "failed"), and a
 * denied call too (the reason, or "denied"). A run that ends without an answer
 * claims nothing, and may end so only at a denial (`APPROVAL_DENIED`) or on a
 * placeholder that reads what a failed or denied call does not have
 * (`SCRIPT_PLACEHOLDER_UNFILLED`): never on another error of its script.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as ts from 'typescript';
import { parse, stringify } from 'yaml';
import type { RunEvent } from '@agent-ledger/domain';
import { busPrincipal, isTerminalRunEvent, isWrite } from '@agent-ledger/domain';
import type { AgentDefinition, AgentTool, ScriptedRound, ToolContext } from '@agent-ledger/runtime';
import {
  approvalsOf,
  ClockNowTool,
  FilesAppendTool,
  FilesListTool,
  FilesReadTool,
  FilesWriteTool,
  getToolMetadata,
  parseAgentsConfig,
  ToolRegistry,
  UserAskTool,
  Workspace,
} from '@agent-ledger/runtime';
import type { RuntimeHarness, TestAgent } from '@agent-ledger/runtime/testing';
import { eventually, startRuntime, stateOf } from '@agent-ledger/runtime/testing';
import { scaled } from '../../../../test/support/time-scale';
import { starterFiles } from '../cli/starter-files';
import { EXAMPLE_NOTES, EXAMPLE_NOTES_FILE } from './service-folders';

const REPO = join(__dirname, '..', '..', '..', '..');
/** What a person answers a tool that asks (`user.ask`): the seeded file, which the example agents read. */
const USER_ANSWER = EXAMPLE_NOTES_FILE;
const DENIAL_REASON = 'not this time';

// ---------------------------------------------------------------------------------------------
// The tools: the built-in ones and the starter's, compiled from the src/tools.ts init writes.

const scratch = mkdtempSync(join(tmpdir(), 'agent-ledger-shipped-agents-'));
const starter = new Map(starterFiles({ name: 'starter', version: '0.0.0-test' }).map((file) => [file.path, file.content]));

/** The starter's tool classes, from its src/tools.ts compiled as its tsconfig does (decorators, CommonJS). */
function starterToolClasses(): (new () => AgentTool & object)[] {
  const source = starter.get('src/tools.ts');
  if (source === undefined) throw new Error('the starter has no src/tools.ts');
  const compiled = ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, experimentalDecorators: true, emitDecoratorMetadata: true, esModuleInterop: true },
  });
  const file = join(scratch, 'starter-tools.js');
  writeFileSync(file, compiled.outputText);
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the compiled plugin, loaded as the service loads a CommonJS plugin
  const plugin = (require(file) as { default: { tools: (new () => AgentTool & object)[] } }).default;
  return plugin.tools;
}

const STARTER_TOOLS = starterToolClasses();
const BUILTIN_TOOLS = [FilesReadTool, FilesListTool, FilesWriteTool, FilesAppendTool, ClockNowTool, UserAskTool];
const KNOWN_TOOLS = [...BUILTIN_TOOLS, ...STARTER_TOOLS].map((type) => getToolMetadata(type)?.name ?? '');

/** Every tool, its real instance, in `workspace`. */
async function realTools(workspace: string): Promise<(AgentTool & object)[]> {
  const files = await Workspace.open({ workspaceDir: workspace });
  return [new FilesReadTool(files), new FilesListTool(files), new FilesWriteTool(files), new FilesAppendTool(files), new ClockNowTool(), new UserAskTool(), ...STARTER_TOOLS.map((type) => new type())];
}

/**
 * The tool as the runtime registers it (its class, effect and schema), which
 * fails, in the runs `failing` names it for, as a tool does whose file cannot
 * be written.
 */
function failingWhenAsked(tool: AgentTool & object, failing: ReadonlyMap<string, string>): AgentTool & object {
  const name = getToolMetadata(tool)?.name;
  const execute = (args: Parameters<AgentTool['execute']>[0], context: ToolContext) => {
    if (failing.get(context.runId) === name) {
      return Promise.reject(Object.assign(new Error(`EACCES: permission denied, open '${context.workspaceDir ?? '.'}/${String(name)}'`), { code: 'EACCES' }));
    }
    return tool.execute(args, context);
  };
  return Object.create(tool, { execute: { value: execute } }) as AgentTool & object;
}

// ---------------------------------------------------------------------------------------------
// The agents: the starter's, config/*.yaml, and the YAML blocks of the docs.

/** Scripted agents of one file or block. */
interface AgentSource {
  /** Where they are, e.g. `docs/models-and-agents.md:420`. */
  readonly label: string;
  readonly agents: readonly AgentDefinition[];
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isScripted = (agent: unknown): boolean => isRecord(agent) && isRecord(agent['provider']) && agent['provider']['type'] === 'scripted';

/** The tools a script calls, in order of first call. */
function toolsCalled(script: readonly ScriptedRound[]): string[] {
  return [...new Set(script.flatMap((round) => ('toolCalls' in round ? round.toolCalls.map((call) => call.tool) : [])))];
}

/** The scripted agents of a parsed YAML document (an agents file, a list of agents, or one scripted provider), checked as the service checks an agents file. */
function scriptedAgentsOf(document: unknown, label: string): AgentDefinition[] {
  let entries: unknown[] = [];
  if (isRecord(document) && Array.isArray(document['agents'])) entries = document['agents'].filter(isScripted);
  else if (Array.isArray(document)) entries = document.filter(isScripted);
  else if (isScripted(document) && isRecord(document) && !('name' in document)) {
    const provider = document['provider'] as { script?: ScriptedRound[] };
    const line = /:(\d+)$/.exec(label)?.[1] ?? '0';
    entries = [{ name: `provider-at-line-${line}`, instructions: 'The scripted provider of the docs.', tools: toolsCalled(provider.script ?? []), provider }];
  } else if (isScripted(document)) entries = [document];
  if (entries.length === 0) return [];
  return [...parseAgentsConfig(stringify({ agents: entries }), label, { knownTools: KNOWN_TOOLS }).agents];
}

/** The YAML blocks of a Markdown file, with the line of each opening fence. */
function yamlBlocks(markdown: string): { line: number; text: string }[] {
  const blocks: { line: number; text: string }[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)```ya?ml\s*$/.exec(lines[i] ?? '');
    if (open === null) continue;
    const indent = open[1]?.length ?? 0;
    const end = lines.findIndex((line, j) => j > i && /^\s*```\s*$/.test(line));
    if (end < 0) break;
    blocks.push({ line: i + 1, text: lines.slice(i + 1, end).map((line) => line.slice(indent)).join('\n') });
    i = end;
  }
  return blocks;
}

function docsSources(): AgentSource[] {
  const files = ['README.md', ...readdirSync(join(REPO, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
  const sources: AgentSource[] = [];
  for (const file of files) {
    for (const block of yamlBlocks(readFileSync(join(REPO, file), 'utf8'))) {
      let document: unknown;
      try {
        document = parse(block.text);
      } catch {
        continue; // a block that is not a YAML document of its own (an excerpt): no agent of its own either
      }
      const label = `${file}:${block.line}`;
      const agents = scriptedAgentsOf(document, label);
      if (agents.length > 0) sources.push({ label, agents });
    }
  }
  return sources;
}

function configSources(): AgentSource[] {
  return readdirSync(join(REPO, 'config'))
    .filter((f) => /\.ya?ml$/.test(f))
    .map((f) => ({ label: `config/${f}`, agents: scriptedAgentsOf(parse(readFileSync(join(REPO, 'config', f), 'utf8')), `config/${f}`) }))
    .filter((source) => source.agents.length > 0);
}

const SOURCES: readonly AgentSource[] = [
  { label: 'the starter of agent-ledger init (agents.yaml)', agents: scriptedAgentsOf(parse(starter.get('agents.yaml') ?? ''), 'agents.yaml of the starter') },
  ...configSources(),
  ...docsSources(),
];

// ---------------------------------------------------------------------------------------------
// The runs, and what their answers may say.

/** One run of an agent: which tool fails, which write a person denies. */
interface Scenario {
  readonly title: string;
  /** The agent the harness runs (the shipped one, or a variant with other approvals). */
  readonly agent: string;
  readonly failing?: string;
  readonly denied?: string;
}

/** What the events say against the answer; empty when the answer claims nothing the events contradict. */
function claimProblems(events: readonly RunEvent[]): string[] {
  const problems: string[] = [];
  const failedCalls = events.flatMap((e) => (e.type === 'ToolExecuted' && e.data.outcome === 'failed' ? [{ tool: e.data.toolName, message: e.data.error?.message ?? '' }] : []));
  const toolOfStep = new Map(events.flatMap((e) => (e.type === 'ApprovalRequested' ? e.data.calls.map((call) => [call.stepId, call.toolName] as const) : [])));
  const deniedCalls = events.flatMap((e) => (e.type === 'ApprovalDenied' ? e.data.stepIds.map((stepId) => ({ tool: toolOfStep.get(stepId) ?? stepId, reason: e.data.reason })) : []));
  const end = events.find(isTerminalRunEvent);
  if (end?.type === 'RunCompleted') {
    const answer = end.data.finalAnswer;
    for (const call of failedCalls) {
      if (!answer.includes(call.message) && !/\bfailed\b/i.test(answer)) problems.push(`answered ${JSON.stringify(answer)}, although ${call.tool} failed (${call.message})`);
    }
    for (const call of deniedCalls) {
      if (!/\bdenied\b/i.test(answer) && !(call.reason !== null && answer.includes(call.reason))) problems.push(`answered ${JSON.stringify(answer)}, although a person denied ${call.tool}`);
    }
  } else if (end?.type === 'RunFailed') {
    const { reason, failure } = end.data;
    const atDenial = reason === 'APPROVAL_DENIED' && deniedCalls.length > 0;
    const unfillable = failure.code === 'SCRIPT_PLACEHOLDER_UNFILLED' && failedCalls.length + deniedCalls.length > 0;
    if (!atDenial && !unfillable) problems.push(`failed ${reason} (${failure.code ?? failure.failureClass}): ${failure.message}`);
  } else {
    problems.push(`ended ${end?.type ?? 'never'}`);
  }
  return problems;
}

describe.each(SOURCES)('the scripted agents of $label answer from what their runs recorded', ({ label, agents }) => {
  let workspace: string;
  let rt: RuntimeHarness;
  const failing = new Map<string, string>();
  const scenarios = new Map<string, Scenario[]>();

  beforeAll(async () => {
    workspace = realpathSync(mkdtempSync(join(scratch, 'workspace-')));
    writeFileSync(join(workspace, EXAMPLE_NOTES_FILE), EXAMPLE_NOTES);
    const tools = await realTools(workspace);
    const registry = new ToolRegistry();
    for (const tool of tools) registry.register(tool);
    const testAgents: TestAgent[] = [];
    for (const agent of agents) {
      if (agent.provider.type !== 'scripted') continue;
      const { script } = agent.provider;
      const approvals = approvalsOf(agent);
      const variant = (name: string, preApproved: readonly string[], onDenial: 'endRun' | 'tellModel'): string => {
        testAgents.push({ name, script, tools: agent.tools, maxIterations: agent.maxIterations, approvals: { preApproved, onDenial } });
        return name;
      };
      const shipped = variant(agent.name, approvals.preApproved, approvals.onDenial);
      const called = toolsCalled(script);
      const writes = called.filter((tool) => isWrite(registry.effectFor(tool)));
      const waits = called.filter((tool) => (isWrite(registry.effectFor(tool)) && !approvals.preApproved.includes(tool)) || registry.get(tool)?.requiresApproval === true);
      scenarios.set(agent.name, [
        { title: 'every call succeeding, every approval granted', agent: shipped },
        ...called.map((tool) => ({ title: `${tool} failing`, agent: shipped, failing: tool })),
        ...waits.map((tool) => ({ title: `${tool} denied (onDenial: ${approvals.onDenial}, as shipped)`, agent: shipped, denied: tool })),
        ...writes.map((tool, i) => ({
          title: `${tool} denied, the model told (onDenial: tellModel)`,
          agent: variant(`${agent.name}-told-${i}`, approvals.preApproved.filter((t) => t !== tool), 'tellModel'),
          denied: tool,
        })),
      ]);
    }
    rt = await startRuntime({
      agents: testAgents,
      tools: tools.map((tool) => failingWhenAsked(tool, failing)),
      workspaceDir: workspace,
      execution: { workers: { concurrency: 1 } },
    });
  });

  afterAll(async () => {
    await rt?.close();
  });

  /** Runs the scenario to its end: approvals granted but the denied write's, the person's answer given. */
  async function play(scenario: Scenario): Promise<RunEvent[]> {
    const runId = randomUUID();
    if (scenario.failing !== undefined) failing.set(runId, scenario.failing);
    const request = { agent: scenario.agent, input: 'Do what you do.', runId, requestedBy: busPrincipal('shipped-agents-test') };
    await rt.runs.enqueue(request);
    for (;;) {
      const events = await eventually(
        async () => {
          const recorded = await rt.runEvents(runId);
          const status = stateOf(recorded).status;
          return recorded.some(isTerminalRunEvent) || status === 'WAITING_FOR_APPROVAL' || status === 'WAITING_FOR_INPUT' ? recorded : undefined;
        },
        20_000,
        `run ${runId} (${scenario.agent}, ${scenario.title}) to wait for a person or end`,
      );
      if (events.some(isTerminalRunEvent)) return events;
      const last = [...events].reverse().find((e) => e.type === 'ApprovalRequested' || e.type === 'InputRequested');
      if (last?.type === 'ApprovalRequested') {
        const deny = last.data.calls.some((call) => call.toolName === scenario.denied);
        await rt.runs.decideApproval(runId, { decision: deny ? 'deny' : 'approve', decidedBy: busPrincipal('reviewer'), reason: deny ? DENIAL_REASON : 'fine' });
      } else {
        await rt.runs.submitInput(runId, { input: USER_ANSWER, submittedBy: busPrincipal('user') });
      }
    }
  }

  it.each(agents.map((agent) => agent.name))(
    '%s: completes when everything succeeds, and never answers against its events when a tool fails or a write is denied',
    async (name) => {
      const problems: string[] = [];
      for (const scenario of scenarios.get(name) ?? []) {
        const events = await play(scenario);
        const end = events.find(isTerminalRunEvent);
        if (scenario.failing === undefined && scenario.denied === undefined) {
          if (end?.type !== 'RunCompleted') problems.push(`${scenario.title}: ended ${end?.type ?? 'never'}: ${JSON.stringify(end?.data)}`);
          continue;
        }
        // The scenario happened: the tool failed, the write was put to a person and denied.
        if (scenario.failing !== undefined && !events.some((e) => e.type === 'ToolExecuted' && e.data.toolName === scenario.failing && e.data.outcome === 'failed')) {
          problems.push(`${scenario.title}: the run never called ${scenario.failing}`);
        }
        if (scenario.denied !== undefined && !events.some((e) => e.type === 'ApprovalDenied')) problems.push(`${scenario.title}: the run never asked to approve ${scenario.denied}`);
        problems.push(...claimProblems(events).map((problem) => `${scenario.title}: ${problem}`));
      }
      expect({ agent: `${name} (${label})`, problems }).toEqual({ agent: `${name} (${label})`, problems: [] });
    },
    scaled(120_000),
  );
});

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('the shipped scripted agents', () => {
  it('are found where the product ships and writes them: the starter, config/, the docs', () => {
    const found = SOURCES.flatMap((source) => source.agents.map((agent) => `${source.label.replace(/:\d+$/, '')} ${agent.name}`));
    expect(found).toEqual(
      expect.arrayContaining([
        'the starter of agent-ledger init (agents.yaml) note-keeper',
        'config/agents.example.yaml file-clerk',
        'config/agents.example.yaml time-teller',
        'config/agents.example.yaml ticket-asker',
        'docs/models-and-agents.md file-clerk',
      ]),
    );
  });
});
