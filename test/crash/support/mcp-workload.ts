/**
 * The crash scenarios of MCP writes (issue 28 §3): agents whose every write is
 * a tool of the tests' MCP server (test/support/mcp/test-server.cjs, started
 * by each `serve` and `worker` process through `mcp-crash-server.cjs`), bound
 * in the agents file; the server's own record of its executions (COUNT_FILE)
 * read as the execution ledger; the kill of a client in the middle of a call;
 * and the checks that are the MCP path's own (the idempotency key the server
 * received, a non-idempotent call in flight dead-lettered).
 */
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseSegmentOwner } from '@agent-ledger/domain';
import type { LedgerLine } from '../../../apps/agent-ledger/src/config/crash-test/test-ledger.tools';
import type { HistoryEvent } from './history';
import type { SubmittedRun, Violation } from './invariants';
import { NOT_RETRYABLE_REASONS } from './invariants';

/** The bound server's name: its tools are `m.count` (`IDEMPOTENT_WRITE`, declared) and `m.append` (nothing declared: `NON_IDEMPOTENT_WRITE`). */
export const MCP_SERVER = 'm';
const KEY_PREFIX = 'agent-ledger:';
const SERVER_SCRIPT = join(__dirname, 'mcp-crash-server.cjs');

/** The files the MCP server copies of a scenario write (`mcp-crash-server.cjs`). */
export interface McpFiles {
  /** `COUNT_FILE`: one line per execution of `count` or `append`, `{tool, key, pid, ...}` (pid: the server's). */
  readonly countFile: string;
  /** `MCP_SERVERS_FILE`: one line per server started, `{serverPid, clientPid}`. */
  readonly serversFile: string;
  /** `KILL_CLIENT_FILE`: while it exists (naming a tool, and maybe a pattern of keys), the next such call kills its client. */
  readonly killArmFile: string;
  /** `KILLS_FILE`: one line per client killed by its server, `{serverPid, clientPid, tool, key}`. */
  readonly killsFile: string;
}

/** The MCP files of a scenario in `dir`. */
export function mcpFilesIn(dir: string): McpFiles {
  return { countFile: join(dir, 'mcp-count.jsonl'), serversFile: join(dir, 'mcp-servers.jsonl'), killArmFile: join(dir, 'mcp-kill-armed'), killsFile: join(dir, 'mcp-kills.jsonl') };
}

/**
 * The agents file: the server bound once (both tools with a 5 s deadline, as
 * the `ledger.*` tools: a fenced write's run waits deadline + 60 s for its
 * lease), and four agents whose writes are all MCP calls:
 * - `mcounter`: two `count`s, one per round (idempotent writes only: its queued runs must complete);
 * - `mmixer`: a `count`, then an `append`;
 * - `mbatcher`: an `append` and a `count` in one round;
 * - `mapprover`: a `count` (pre-approved), then an `append` that waits for the operator's approval.
 */
export function mcpCrashAgentsYaml(files: McpFiles): string {
  const env = { COUNT_FILE: files.countFile, MCP_SERVERS_FILE: files.serversFile, KILL_CLIENT_FILE: files.killArmFile, KILLS_FILE: files.killsFile };
  const count = (label: string) => `{ tool: ${MCP_SERVER}.count, arguments: { label: ${label} } }`;
  const append = (line: string) => `{ tool: ${MCP_SERVER}.append, arguments: { line: ${line} } }`;
  const tools = `[${MCP_SERVER}.count, ${MCP_SERVER}.append]`;
  return `mcpServers:
  - name: ${MCP_SERVER}
    transport:
      type: stdio
      command: ${JSON.stringify(process.execPath)}
      args: [${JSON.stringify(SERVER_SCRIPT)}]
      env: ${JSON.stringify(env)}
    tools:
      count: { effect: IDEMPOTENT_WRITE, operationDeadlineSeconds: 5 }
      append: { operationDeadlineSeconds: 5 }
agents:
  - name: mcounter
    instructions: Count twice.
    tools: [${MCP_SERVER}.count]
    approvals: { preApproved: [${MCP_SERVER}.count] }
    maxIterations: 5
    provider:
      type: scripted
      script:
        - toolCalls: [${count('c0')}]
        - toolCalls: [${count('c1')}]
        - final: counted
  - name: mmixer
    instructions: Count, then append.
    tools: ${tools}
    approvals: { preApproved: ${tools} }
    maxIterations: 5
    provider:
      type: scripted
      script:
        - toolCalls: [${count('m0')}]
        - toolCalls: [${append('m1')}]
        - final: mixed
  - name: mbatcher
    instructions: Append and count in one round.
    tools: ${tools}
    approvals: { preApproved: ${tools} }
    maxIterations: 4
    provider:
      type: scripted
      script:
        - toolCalls: [${append('b0')}, ${count('b1')}]
        - final: batched
  - name: mapprover
    instructions: Count, then append once a person approves.
    tools: ${tools}
    approvals: { preApproved: [${MCP_SERVER}.count], onDenial: endRun }
    maxIterations: 5
    provider:
      type: scripted
      script:
        - toolCalls: [${count('a0')}]
        - toolCalls: [${append('a1')}]
        - final: appended after approval
`;
}

/** The queued runs' agents, in turn, and the interactive ones'. */
export const MCP_QUEUED_AGENTS = ['mcounter', 'mmixer', 'mbatcher', 'mapprover', 'mcounter', 'mmixer'] as const;
export const MCP_INTERACTIVE_AGENTS = ['mmixer', 'mcounter'] as const;
/** Agents whose only writes are idempotent: a queued run of theirs must complete, whatever was killed... */
const IDEMPOTENT_ONLY_AGENTS = new Set(['mcounter']);
/** ...unless a write's audit was lost (the run failed closed: invariant 3) or its retries were spent (invariant 6's budget). */
const IDEMPOTENT_RUN_MAY_FAIL = new Set(['AUDIT_MISSING', 'AUDIT_PERSISTENCE_FAILED', 'RETRIES_EXHAUSTED']);

/** One execution the server recorded, with the process that called it. */
export interface McpExecution {
  readonly tool: string;
  readonly key: string | null;
  readonly serverPid: number;
  /** The `serve` or `worker` process that started the server (null: the server's start line is missing). */
  readonly clientPid: number | null;
}

/** A client killed by its server in the middle of a call. */
export interface McpKill {
  readonly serverPid: number;
  readonly clientPid: number;
  readonly tool: string;
  readonly key: string | null;
}

function jsonLines<T>(path: string): { lines: T[]; unreadable: string[] } {
  const lines: T[] = [];
  const unreadable: string[] = [];
  if (!existsSync(path)) return { lines, unreadable };
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    try {
      lines.push(JSON.parse(line) as T);
    } catch {
      unreadable.push(line);
    }
  }
  return { lines, unreadable };
}

/** The server's executions (COUNT_FILE), each with its client's pid (MCP_SERVERS_FILE). */
export function readMcpExecutions(files: McpFiles): { executions: McpExecution[]; unreadable: string[] } {
  const servers = jsonLines<{ serverPid: number; clientPid: number }>(files.serversFile);
  const clients = new Map(servers.lines.map((s) => [s.serverPid, s.clientPid]));
  const counted = jsonLines<{ tool: string; key: string | null; pid: number }>(files.countFile);
  return {
    executions: counted.lines.map((line) => ({ tool: line.tool, key: line.key, serverPid: line.pid, clientPid: clients.get(line.pid) ?? null })),
    unreadable: [...servers.unreadable, ...counted.unreadable],
  };
}

/** The clients killed by their server so far. */
export function readMcpKills(files: McpFiles): McpKill[] {
  return jsonLines<McpKill>(files.killsFile).lines;
}

/** The step of an idempotency key (`agent-ledger:<stepId>`), or null. */
export function stepOfKey(key: string | null): string | null {
  return key !== null && key.startsWith(KEY_PREFIX) && key.length > KEY_PREFIX.length ? key.slice(KEY_PREFIX.length) : null;
}

/** The run of a step id (`<runId>/r<round>/t<call>`). */
export function runOfStep(stepId: string): string {
  const at = stepId.search(/\/r\d+\//);
  return at < 0 ? stepId : stepId.slice(0, at);
}

/**
 * The executions as execution-ledger lines, so that the crash invariants
 * read them as they read the `ledger.*` tools' lines: tool `m.<tool>`, the
 * step and run of the key, and the attempt of the step's fence
 * (`StepStarted`) made by the process that called the server (its owner
 * `kind:host:pid:tag`), 0 when none did (invariant 2 then reports an
 * execution without a fence). When one process fenced the step more than
 * once (it claimed the run again: a call failed as retryable), each fence
 * sends at most once and the lines are in the order they were written: the
 * last line goes with the last fence, the one before with the fence before,
 * and so on (a completed step's last fence is its completing one).
 */
export function mcpLedgerLines(executions: readonly McpExecution[], runs: ReadonlyMap<string, readonly HistoryEvent[]>): LedgerLine[] {
  const sent = new Map<string, number>();
  const sentBy = (stepId: string, pid: number | null) => executions.filter((e) => stepOfKey(e.key) === stepId && e.clientPid === pid).length;
  return executions.flatMap((execution): LedgerLine[] => {
    const stepId = stepOfKey(execution.key);
    if (stepId === null) return [];
    const runId = runOfStep(stepId);
    const fences = (runs.get(runId) ?? [])
      .filter((e) => e.type === 'StepStarted' && e.data['stepId'] === stepId && ownerPid(e.data['owner']) === execution.clientPid)
      .map((e) => Number(e.data['attempt']))
      .sort((a, b) => a - b);
    const group = `${stepId} ${execution.clientPid}`;
    const index = sent.get(group) ?? 0;
    sent.set(group, index + 1);
    const attempt = fences.length === 0 ? 0 : (fences[Math.max(0, fences.length - sentBy(stepId, execution.clientPid) + index)] as number);
    return [{ tool: `${MCP_SERVER}.${execution.tool}`, runId, stepId, idempotencyKey: execution.key as string, attempt, pid: execution.clientPid ?? -1, at: 0, value: null }];
  });
}

function ownerPid(owner: unknown): number | null {
  if (typeof owner !== 'string') return null;
  try {
    return parseSegmentOwner(owner).pid;
  } catch {
    return null;
  }
}

/** What the MCP checks count. */
export interface McpFigures {
  /** COUNT_FILE lines by tool. */
  readonly executions: Record<string, number>;
  /** `count` steps fenced more than once (retried after a kill), each execution with the step's key. */
  readonly countStepsRetried: number;
  /** ... of which the server executed more than once (the kill came after it executed). */
  readonly countStepsExecutedAgain: number;
  /** `append` steps fenced and never recorded (in flight at a kill): their runs dead-lettered. */
  readonly appendsInFlightDeadLettered: number;
  /** ... of which the server had executed (its line in COUNT_FILE): executed once, never sent again. */
  readonly appendsExecutedUnrecorded: number;
  /** Clients killed by their server in the middle of a call, by tool. */
  readonly clientsKilledMidCall: Record<string, number>;
}

/**
 * The checks of the MCP path, beside invariants 1 to 8 (which read the same
 * executions as ledger lines):
 * - (0) every execution carries a well-formed idempotency key of a run the store knows, and its server's client is known;
 * - (4) an `append` (`NON_IDEMPOTENT_WRITE`) executed at most once per key; an `append` step fenced and never
 *   recorded (in flight at a kill) dead-letters its run (failed not retryable), and is never sent again;
 * - (5) every execution of a `count` step was sent by a process that fenced that very step (the key is the
 *   step's, at each attempt), a `count` step executed more than once (retried after a kill) is recorded
 *   once, and a queued run of an agent whose writes are all idempotent completes (unless a write's audit was
 *   lost and the run failed closed, or its retries were spent);
 * - (0) a call recorded as succeeded was executed by the server, sent by the process that recorded it; a call
 *   whose server killed its client mid-call is in COUNT_FILE.
 */
export function checkMcpWrites(
  executions: readonly McpExecution[],
  unreadable: readonly string[],
  kills: readonly McpKill[],
  runs: ReadonlyMap<string, readonly HistoryEvent[]>,
  submitted: readonly SubmittedRun[],
): { violations: Violation[]; figures: McpFigures } {
  const violations: Violation[] = [];
  const add = (invariant: number, runId: string | null, message: string) => violations.push({ invariant, runId, message });
  const figures = { executions: {} as Record<string, number>, countStepsRetried: 0, countStepsExecutedAgain: 0, appendsInFlightDeadLettered: 0, appendsExecutedUnrecorded: 0, clientsKilledMidCall: {} as Record<string, number> };
  for (const line of unreadable) add(0, null, `an unreadable MCP line: ${line}`);

  const byKey = new Map<string, McpExecution[]>();
  for (const execution of executions) {
    figures.executions[execution.tool] = (figures.executions[execution.tool] ?? 0) + 1;
    const stepId = stepOfKey(execution.key);
    if (stepId === null) {
      add(0, null, `the MCP server executed ${execution.tool} without a well-formed idempotency key: ${JSON.stringify(execution.key)}`);
      continue;
    }
    if (!runs.has(runOfStep(stepId))) add(0, runOfStep(stepId), `the MCP server executed ${execution.tool} for ${execution.key}, a run the store does not know`);
    if (execution.clientPid === null) add(0, runOfStep(stepId), `the MCP server ${execution.serverPid} that executed ${execution.tool} for ${execution.key} never wrote its start line`);
    const list = byKey.get(execution.key as string) ?? [];
    list.push(execution);
    byKey.set(execution.key as string, list);
  }

  for (const [key, lines] of byKey) {
    const stepId = stepOfKey(key) as string;
    const runId = runOfStep(stepId);
    const events = runs.get(runId) ?? [];
    const tools = new Set(lines.map((l) => l.tool));
    if (tools.size > 1) add(0, runId, `one idempotency key ${key} reached the server for different tools: ${[...tools].join(', ')}`);
    const fences = events.filter((e) => e.type === 'StepStarted' && e.data['stepId'] === stepId);
    const recorded = events.filter((e) => e.type === 'ToolExecuted' && e.data['stepId'] === stepId);
    const toolName = `${MCP_SERVER}.${lines[0]?.tool}`;
    if (fences.length > 0 && fences.some((e) => e.data['toolName'] !== toolName)) add(5, runId, `the key ${key} reached ${toolName}, but its step was fenced for ${String(fences[0]?.data['toolName'])}`);
    // Every execution was sent by a process that fenced this very step: the key is the step's at each attempt.
    for (const line of lines) {
      if (!fences.some((e) => ownerPid(e.data['owner']) === line.clientPid)) {
        add(5, runId, `${toolName} executed with the key ${key} by pid ${line.clientPid ?? '?'}, which never fenced step ${stepId} (fences by ${fences.map((e) => String(e.data['owner'])).join(', ') || 'nobody'})`);
      }
    }
    if (lines[0]?.tool === 'append' && lines.length > 1) {
      add(4, runId, `${toolName} (NON_IDEMPOTENT_WRITE) executed ${lines.length} times with the key ${key}: pids ${lines.map((l) => l.clientPid).join(', ')}`);
    }
    if (lines[0]?.tool === 'count' && lines.length > 1) {
      figures.countStepsExecutedAgain += 1;
      if (recorded.length > 1) add(5, runId, `${toolName} step ${stepId} executed ${lines.length} times and recorded ${recorded.length} times`);
    }
  }

  const modes = new Map(submitted.map((r) => [r.runId, r]));
  for (const [runId, events] of runs) {
    const terminal = events.find((e) => e.type === 'RunCompleted' || e.type === 'RunFailed' || e.type === 'RunCancelled') ?? null;
    const failedNotRetryable = terminal?.type === 'RunFailed' && NOT_RETRYABLE_REASONS.has(String(terminal.data['reason']));
    // An append fenced and never recorded: in flight at a kill (or refused before it was sent); its run is dead-lettered.
    const appendSteps = new Set(events.filter((e) => e.type === 'StepStarted' && e.data['toolName'] === `${MCP_SERVER}.append`).map((e) => String(e.data['stepId'])));
    for (const stepId of appendSteps) {
      if (events.some((e) => e.type === 'ToolExecuted' && e.data['stepId'] === stepId)) continue;
      const executed = byKey.get(`${KEY_PREFIX}${stepId}`)?.length ?? 0;
      if (!failedNotRetryable) {
        add(4, runId, `${MCP_SERVER}.append step ${stepId} was fenced and never recorded (executed ${executed} time(s)), and its run ended ${terminal === null ? 'unsettled' : `${terminal.type} ${String(terminal.data['reason'] ?? '')}`}, not dead-lettered`);
        continue;
      }
      figures.appendsInFlightDeadLettered += 1;
      if (executed > 0) figures.appendsExecutedUnrecorded += 1;
    }
    // The premise: a call recorded as succeeded was executed by the server, sent by the process that recorded it (the claim of its attempt's owner).
    for (const e of events) {
      if (e.type !== 'ToolExecuted' || e.data['outcome'] !== 'succeeded' || !String(e.data['toolName']).startsWith(`${MCP_SERVER}.`)) continue;
      const owner = events.find((c) => c.type === 'RunClaimed' && c.data['attempt'] === e.data['attempt'])?.data['owner'];
      const lines = byKey.get(`${KEY_PREFIX}${String(e.data['stepId'])}`) ?? [];
      if (!lines.some((l) => l.clientPid === ownerPid(owner))) {
        add(0, runId, `step ${String(e.data['stepId'])} has a successful ToolExecuted (#${e.revision}, attempt ${String(e.data['attempt'])} of ${String(owner)}) but the server recorded no execution sent by that process`);
      }
    }
    // A queued run whose writes are all idempotent completes, but for a write's audit lost (failed closed, invariant 3) or its retry budget spent.
    const countFences = new Map<string, number>();
    for (const e of events) if (e.type === 'StepStarted' && e.data['toolName'] === `${MCP_SERVER}.count`) countFences.set(String(e.data['stepId']), (countFences.get(String(e.data['stepId'])) ?? 0) + 1);
    figures.countStepsRetried += [...countFences.values()].filter((n) => n > 1).length;
    const run = modes.get(runId);
    if (run !== undefined && run.mode === 'queued' && IDEMPOTENT_ONLY_AGENTS.has(run.agent) && !(terminal?.type === 'RunFailed' && IDEMPOTENT_RUN_MAY_FAIL.has(String(terminal.data['reason'])))) {
      if (terminal?.type !== 'RunCompleted') {
        add(5, runId, `a queued run of ${run.agent} (idempotent MCP writes only) ended ${terminal === null ? 'unsettled' : `${terminal.type} ${String(terminal.data['reason'] ?? '')}`}: an idempotent write retried after a kill must let its run complete`);
      }
    }
  }

  for (const kill of kills) {
    figures.clientsKilledMidCall[kill.tool] = (figures.clientsKilledMidCall[kill.tool] ?? 0) + 1;
    if (!executions.some((e) => e.serverPid === kill.serverPid && e.key === kill.key && e.tool === kill.tool)) {
      add(0, kill.key === null ? null : runOfStep(stepOfKey(kill.key) ?? ''), `the server ${kill.serverPid} killed its client during ${kill.tool} for ${kill.key}, but the execution is not in COUNT_FILE`);
    }
  }
  return { violations, figures };
}

/**
 * The harness's side of the kill in the middle of a call: arms it (the next
 * call of `tool` by any server kills its client), disarms it, and tells
 * whether a process that died was killed by its server.
 */
export class McpClientKiller {
  constructor(private readonly files: McpFiles) {}

  /**
   * Arms one kill at the next call of `tool` (`count`, `append` or `any`) whose idempotency key matches `keyPattern`
   * (a regular expression without spaces; any key without it), by whichever server answers first.
   */
  arm(tool: 'count' | 'append' | 'any', keyPattern?: string): void {
    const temporary = `${this.files.killArmFile}.tmp`;
    writeFileSync(temporary, keyPattern === undefined ? tool : `${tool} ${keyPattern}`);
    renameSync(temporary, this.files.killArmFile);
  }

  /** Whether a kill is armed and not claimed yet. */
  armed(): boolean {
    return existsSync(this.files.killArmFile);
  }

  /** Disarms an unclaimed kill (a server may have claimed it just before: its kill is reported as usual). */
  disarm(): void {
    rmSync(this.files.killArmFile, { force: true });
  }

  /** The kill of the process `pid` by its server, if it was one. */
  killOf(pid: number): McpKill | null {
    return readMcpKills(this.files).find((kill) => kill.clientPid === pid) ?? null;
  }
}
