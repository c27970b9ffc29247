#!/usr/bin/env node
/*
 * What this file imports when it loads is all `--help` and `--version` load:
 * Node's own modules and the CLI's small modules without dependencies. Each
 * verb loads what it needs when it runs (`import()`): the HTTP verbs the
 * client of the service, the verbs that open the stores or start Nest the
 * service's configuration, the stores and the runtime.
 */
import type { ParseArgsConfig } from 'node:util';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { ServiceConfig } from '../config/service-config';
import type * as ServiceConfigModule from '../config/service-config';
import type * as RunsCommands from './runs.commands';
import type { CliOutput } from './cli-output';
import { ExitCode, processOutput } from './cli-output';
import type { AgentLedgerClient } from '@agent-ledger/client';
import type { FollowReconnect } from './events-follow.command';
import type { ServiceFailure } from './service-client';
import { ServiceFailureError, UsageError } from './cli-errors';
import { API_KEY_ENV, URL_ENV } from './service-env';
import { stopSignalOf } from './stop-signal';
import { exitWhenFlushed } from './exit-when-flushed';
import { ownVersion } from './own-version';

/** What the CLI takes from the outside world besides its arguments, output and environment (injected by tests). */
export interface CliDeps {
  /** The fetch of the client of the service. @default globalThis.fetch */
  readonly fetch?: typeof fetch;
  /** Stops the long-running verbs (`events follow`, `serve`, `worker`). @default the first SIGINT or SIGTERM */
  readonly stop?: AbortSignal;
  /** `events follow`'s reconnection timings (tests shorten them). */
  readonly follow?: FollowReconnect;
  /** The clock of the ages printed (`approvals list`). @default Date.now */
  readonly now?: () => number;
  /** The current folder of the verbs that open the stores (relative settings, a configuration file left unread). @default process.cwd() */
  readonly cwd?: string;
}

type Options = NonNullable<ParseArgsConfig['options']>;
type Values = Record<string, string | boolean | undefined>;

interface VerbContext {
  readonly values: Values;
  readonly positionals: readonly string[];
  readonly output: CliOutput;
  readonly env: NodeJS.ProcessEnv;
  readonly deps: CliDeps;
}

/** One verb of the CLI. */
interface Verb {
  /** `['runs', 'start']`, `['serve']`. */
  readonly words: readonly string[];
  /** Positionals after the words: `<runId>` required, `[name]` optional. */
  readonly args: readonly string[];
  /** Options after the words, for the synopsis. */
  readonly synopsis: string;
  readonly summary: string;
  /** The `--help` text below the synopsis; a function when it names what a module it would load holds (the run statuses). */
  readonly help: string | (() => Promise<string>);
  readonly options: Options;
  run(context: VerbContext): Promise<ExitCode>;
}

const URL_OPTION: Options = { url: { type: 'string' }, timeout: { type: 'string' } };
const JSON_OPTION: Options = { json: { type: 'boolean', default: false } };
/** `--full`: a tool's whole result, not its first 200 characters. */
const FULL_OPTION: Options = { full: { type: 'boolean', default: false } };

const HTTP_HELP = `
The service is reached at --url, else ${URL_ENV}, else http://127.0.0.1:<PORT or 3000>.
When ${API_KEY_ENV} is set it is sent as "Authorization: Bearer <key>"; the key is
never taken from the command line (it would stay in the shell's history).`;
const TIMEOUT_HELP = `
--timeout <seconds>: how long to wait for the answer (default 30; for an
interactive start, no limit unless given).`;

const STORES_HELP = `
It opens the stores of the service's configuration, read as serve and worker read it:
the environment (AGENT_LEDGER_DATA_DIR, default ./data of the current folder;
EVENT_STORE_PATH, AUDIT_STORE_PATH, EVENTSTORE_CONNECTION_STRING,
POSTGRES_CONNECTION_STRING and the other POSTGRES_* settings), then the configuration
file of --config (or AGENT_LEDGER_CONFIG), then the defaults; the environment wins
over the file. Its first line names the stores it read (kind, file or connection
without password, store identity) and where the settings came from; with --json,
its "stores" field. A configuration file in the current folder (agent-ledger*.yaml,
.yml or .json) that was not given is warned about on standard error, naming --config.
A run store that does not exist is refused (exit 3) and nothing is created.
--config <file>: the configuration file (YAML or JSON), as AGENT_LEDGER_CONFIG.`;

const CONFIG_HELP = `
--config <file>: the configuration file (YAML or JSON), as AGENT_LEDGER_CONFIG; its
settings, \`plugins\` included, are read relative to its folder.`;

const VERBS: readonly Verb[] = [
  {
    words: ['init'],
    args: ['[dir]'],
    synopsis: '[dir] [--mcp]',
    summary: 'write a starter project (a plugin with two tools, an agent, the settings) into an empty folder',
    help: `Writes into dir (default: the current folder), which must be empty or missing: package.json,
tsconfig.json, src/tools.ts (a plugin with notes.read, READ_ONLY, and notes.save,
IDEMPOTENT_WRITE), agents.yaml (an agent on them with a scripted model: no API key
needed), agent-ledger.yaml (plugins, agents file, data folder) and a README.
--mcp: also binds the MCP filesystem server (@modelcontextprotocol/server-filesystem,
a dependency) in agents.yaml, with a declared effect for each of its tools,
gives it the folder files/, and adds the agent file-clerk on its tools.
A folder that is not empty is refused (exit 3) and nothing is written.`,
    options: { mcp: { type: 'boolean' } },
    run: async ({ positionals, values, output }) => {
      const { init } = await import('./init.command');
      return init(positionals[0] ?? '.', output, undefined, { mcp: values.mcp === true });
    },
  },
  {
    words: ['serve'],
    args: [],
    synopsis: '[--port N] [--host H] [--config FILE]',
    summary: 'the service in the foreground: HTTP, workers, reaper, audit-gap saga, projections',
    help: `Starts the service as \`npm start\` does, with the environment's settings (see the README);
--port and --host override PORT and HOST. Ctrl-C or SIGTERM shuts it down cleanly.${CONFIG_HELP}`,
    options: { port: { type: 'string' }, host: { type: 'string' }, config: { type: 'string' } },
    run: async ({ values, env: given, output, deps }) => {
      const env = withConfigFile(values, given);
      (await serviceConfigReader()).readServiceConfig(env); // a bad setting is reported here, exit 3, before anything starts
      const { serve } = await import('./serve.command');
      const stop = stopSignalOf(deps.stop);
      try {
        return await serve({ port: str(values.port), host: str(values.host) }, env, output, stop.signal);
      } finally {
        stop.dispose();
      }
    },
  },
  {
    words: ['worker'],
    args: [],
    synopsis: '[--concurrency N] [--no-saga] [--config FILE]',
    summary: 'workers only (no HTTP), for scale-out on the same stores',
    help: `Runs WORKER_CONCURRENCY workers (or --concurrency N), the reaper (REAPER_INTERVAL_MS)
and the audit-gap saga (unless --no-saga) on the stores of the configuration: the
same embedded files as a \`serve\` on this machine, or EventStoreDB. No HTTP, no read
models. It loads the same plugins as \`serve\` (its workers run their tools).
Ctrl-C or SIGTERM stops the workers, then closes the stores.${CONFIG_HELP}`,
    options: { concurrency: { type: 'string' }, 'no-saga': { type: 'boolean', default: false }, config: { type: 'string' } },
    run: async ({ values, env, output, deps }) => {
      const config = (await serviceConfigReader()).readServiceConfig(withConfigFile(values, env));
      const { misspelledSettings, misspelledSettingWarning } = await import('../config/misspelled-settings');
      for (const setting of misspelledSettings(env)) output.err(`agent-ledger: warning: ${misspelledSettingWarning(setting)}`);
      const stop = stopSignalOf(deps.stop);
      try {
        const { worker } = await import('./worker.command');
        return await worker(config, { concurrency: str(values.concurrency), noSaga: values['no-saga'] === true }, output, stop.signal);
      } finally {
        stop.dispose();
      }
    },
  },
  {
    words: ['runs', 'start'],
    args: [],
    synopsis: '--agent <name> --input <json|text> [--mode queued|interactive] [--idempotency-key K] [--json | -q] [--url U]',
    summary: 'start a run (queued by default)',
    help: `--input is sent as JSON when it is valid JSON ('{"task":"x"}', '42', '"text"'), as text otherwise.
--mode interactive waits for the run to settle and prints it with its steps;
exit 1 when it did not complete. --idempotency-key makes the command safe to
repeat: the same key gives the same run and starts nothing new.
-q/--quiet prints the run id only; --json prints the service's answer.${HTTP_HELP}${TIMEOUT_HELP}`,
    options: {
      agent: { type: 'string' },
      input: { type: 'string' },
      mode: { type: 'string', default: 'queued' },
      'idempotency-key': { type: 'string' },
      quiet: { type: 'boolean', short: 'q', default: false },
      ...JSON_OPTION,
      ...URL_OPTION,
    },
    run: async ({ values, env, output, deps }) => {
      const agent = required(values, 'agent');
      const input = required(values, 'input');
      const mode = str(values.mode);
      if (mode !== 'queued' && mode !== 'interactive') throw new UsageError(`--mode must be queued or interactive (got "${mode}")`);
      const client = await clientOf(values, env, deps, mode === 'interactive' ? null : 30_000);
      const { runsStart } = await runsCommands();
      return runsStart(client, { agent, input, mode, idempotencyKey: str(values['idempotency-key']), json: values.json === true, quiet: values.quiet === true }, output);
    },
  },
  {
    words: ['runs', 'get'],
    args: ['<runId>'],
    synopsis: '<runId> [--full] [--json] [--url U]',
    summary: 'one run, from the run-status read model, with its tool results',
    help: `Prints the run's status, reason, failure, attempts, steps and times, then each completed
tool call with its result (the first 200 characters and its length; --full: all of it),
its failure, or who denied it and why, read from the run's events (--json: the row as
the service answers it, without the results). Right after a queued start the read model
may not know the run yet for a few milliseconds (exit 4, RUN_NOT_FOUND).${HTTP_HELP}${TIMEOUT_HELP}`,
    options: { ...JSON_OPTION, ...FULL_OPTION, ...URL_OPTION },
    run: async ({ values, positionals, env, output, deps }) => {
      const client = await clientOf(values, env, deps);
      const { runsGet } = await runsCommands();
      return runsGet(client, positionals[0] as string, { json: values.json === true, full: values.full === true }, output);
    },
  },
  {
    words: ['runs', 'list'],
    args: [],
    synopsis: '[--status S] [--agent A] [--limit N] [--cursor C] [--json] [--url U]',
    summary: 'runs, newest first, filtered, one page at a time',
    help: async () => `--status: ${(await runsCommands()).RUN_STATUSES.join(', ')}. --limit: 1 to 1000 (default 50).
When there are more runs, the last line gives the --cursor of the next page.${HTTP_HELP}${TIMEOUT_HELP}`,
    options: { status: { type: 'string' }, agent: { type: 'string' }, limit: { type: 'string' }, cursor: { type: 'string' }, ...JSON_OPTION, ...URL_OPTION },
    run: async ({ values, env, output, deps }) => {
      const client = await clientOf(values, env, deps);
      const { runsList } = await runsCommands();
      return runsList(client, { status: str(values.status), agent: str(values.agent), limit: str(values.limit), cursor: str(values.cursor), json: values.json === true }, output);
    },
  },
  {
    words: ['runs', 'cancel'],
    args: ['<runId>'],
    synopsis: '<runId> [--reason R] [--json] [--url U]',
    summary: 'cancel a run (queued: at once; running: at its next step boundary)',
    help: `A settled run cannot be cancelled: exit 4 (RUN_ALREADY_SETTLED).${HTTP_HELP}${TIMEOUT_HELP}`,
    options: { reason: { type: 'string' }, ...JSON_OPTION, ...URL_OPTION },
    run: async ({ values, positionals, env, output, deps }) => {
      const client = await clientOf(values, env, deps);
      const { runsCancel } = await runsCommands();
      return runsCancel(client, positionals[0] as string, { reason: str(values.reason), json: values.json === true }, output);
    },
  },
  {
    words: ['runs', 'requeue'],
    args: ['<runId>'],
    synopsis: '<runId> [--reason R] [--write-executed NOTE | --write-not-executed NOTE] [--json | -q] [--url U]',
    summary: 'requeue a dead-lettered run as a continuation run',
    help: `The run stays FAILED; a continuation run takes it over with its completed steps and
idempotency keys. When a NON_IDEMPOTENT_WRITE was in flight, say whether it happened and
how you know: --write-executed "<note>" or --write-not-executed "<note>" (recorded in
the audit trail). Refusals are exit 4: RUN_NOT_DEAD_LETTERED, RUN_ALREADY_REQUEUED,
IN_FLIGHT_WRITE_UNRESOLVED. -q/--quiet prints the continuation run's id only.${HTTP_HELP}${TIMEOUT_HELP}`,
    options: {
      reason: { type: 'string' },
      'write-executed': { type: 'string' },
      'write-not-executed': { type: 'string' },
      quiet: { type: 'boolean', short: 'q', default: false },
      ...JSON_OPTION,
      ...URL_OPTION,
    },
    run: async ({ values, positionals, env, output, deps }) => {
      const executed = str(values['write-executed']);
      const notExecuted = str(values['write-not-executed']);
      if (executed !== undefined && notExecuted !== undefined) throw new UsageError('give --write-executed or --write-not-executed, not both');
      const resolution =
        executed !== undefined ? { outcome: 'executed' as const, note: executed } : notExecuted !== undefined ? { outcome: 'notExecuted' as const, note: notExecuted } : undefined;
      const client = await clientOf(values, env, deps);
      const { runsRequeue } = await runsCommands();
      return runsRequeue(client, positionals[0] as string, { reason: str(values.reason), resolution, json: values.json === true, quiet: values.quiet === true }, output);
    },
  },
  decideVerb('approve'),
  decideVerb('deny'),
  {
    words: ['runs', 'input'],
    args: ['<runId>'],
    synopsis: "<runId> --input <json> [--json] [--url U]",
    summary: 'answer a run that waits for input (WAITING_FOR_INPUT), e.g. to user.ask',
    help: `--input is JSON, always: a text is '"notes.txt"' (quotes inside the shell's quotes), an
object '{"file":"notes.txt"}'. The tool that asked (its prompt: agent-ledger runs get
<runId>) runs again with it. A run that does not wait for input is refused: exit 4
(RUN_NOT_WAITING_FOR_INPUT). The key needs the scope runs:submit.${HTTP_HELP}${TIMEOUT_HELP}`,
    options: { input: { type: 'string' }, ...JSON_OPTION, ...URL_OPTION },
    run: async ({ values, positionals, env, output, deps }) => {
      const { parseJsonOption, runsInput } = await runsCommands();
      const input = parseJsonOption('input', required(values, 'input'));
      return runsInput(await clientOf(values, env, deps), positionals[0] as string, { input, json: values.json === true }, output);
    },
  },
  {
    words: ['approvals', 'list'],
    args: [],
    synopsis: '[--state S] [--agent A] [--run-id R] [--since T] [--until T] [--limit N] [--cursor C] [--json] [--url U]',
    summary: 'requests for approval, newest first: when and why, each call and its arguments, the decision',
    help: async () => `Each request: its run, agent and model round; when it was requested (ISO 8601 and
how long ago); each call's tool, declared effect and arguments (clipped at 200
characters); why it needs a person (a write the agent does not pre-approve, or a
tool that always asks); what a denial does; once decided, who decided, when and why.
--state: ${(await import('./approvals.commands')).APPROVAL_STATES.join(', ')} (pending: the runs waiting for a decision now).
--since/--until: requested at or after / before, ms since the epoch or an ISO 8601
date-time. --limit: 1 to 1000 (default 50). --json prints the service's answer, the
arguments whole. When there are more, the last line gives the --cursor of the
next page.${HTTP_HELP}${TIMEOUT_HELP}`,
    options: {
      state: { type: 'string' },
      agent: { type: 'string' },
      'run-id': { type: 'string' },
      since: { type: 'string' },
      until: { type: 'string' },
      limit: { type: 'string' },
      cursor: { type: 'string' },
      ...JSON_OPTION,
      ...URL_OPTION,
    },
    run: async ({ values, env, output, deps }) => {
      const client = await clientOf(values, env, deps);
      const { approvalsList } = await import('./approvals.commands');
      return approvalsList(
        client,
        {
          state: str(values.state),
          agent: str(values.agent),
          runId: str(values['run-id']),
          since: str(values.since),
          until: str(values.until),
          limit: str(values.limit),
          cursor: str(values.cursor),
          json: values.json === true,
        },
        output,
        (deps.now ?? Date.now)(),
      );
    },
  },
  {
    words: ['agents', 'list'],
    args: [],
    synopsis: '[--json] [--url U]',
    summary: 'the agents the key may use, their tools and declared effects, plugins included',
    help: `One line per tool of each agent: the effect its code declares (READ_ONLY,
IDEMPOTENT_WRITE, NON_IDEMPOTENT_WRITE), and whether a call waits for a person
(a write the agent does not pre-approve) or not; --json prints the service's
answer (GET /agents). Plugins' tools and agents are listed as the built-in ones.${HTTP_HELP}${TIMEOUT_HELP}`,
    options: { ...JSON_OPTION, ...URL_OPTION },
    run: async ({ values, env, output, deps }) => {
      const client = await clientOf(values, env, deps);
      const { agentsList } = await import('./agents.commands');
      return agentsList(client, { json: values.json === true }, output);
    },
  },
  {
    words: ['events', 'follow'],
    args: ['<runId>'],
    synopsis: '<runId> [--after <position>] [--until <EventType>] [--full] [--json] [--url U]',
    summary: "print a run's events live until it settles (or until an event of a type)",
    help: `Prints the run's events, history first, then live: "<position> <type> <summary>" per
line (--json: the event as one line of JSON). A tool's result shows its first 200
characters and its length (--full: all of it). --after starts after a position printed
before. A dropped connection is resumed where it stopped (Last-Event-ID), with
back-off, for about a minute (16 attempts). Ends when the run settles: exit 0 when it completed, 1 when
it failed or was cancelled; Ctrl-C ends it with exit 0. --until <EventType> (e.g.
ApprovalRequested, InputRequested, RunFailed) ends it once an event of that type is printed
(exit 0), so that a script can wait for it; a run that settles first is exit 1.${HTTP_HELP}`,
    options: { after: { type: 'string' }, until: { type: 'string' }, ...JSON_OPTION, ...FULL_OPTION, url: { type: 'string' } },
    run: async ({ values, positionals, env, output, deps }) => {
      const until = str(values.until);
      if (until !== undefined && !((await import('@agent-ledger/domain')).RUN_EVENT_TYPES as readonly string[]).includes(until)) {
        throw new UsageError(`--until must be a run event type, e.g. ApprovalRequested (got "${until}"; the types: docs/events.md)`);
      }
      const client = await clientOf(values, env, deps, null);
      const { baseUrlOf } = await import('./service-client');
      const baseUrl = await baseUrlOf(str(values.url), env);
      const { eventsFollow } = await import('./events-follow.command');
      const stop = stopSignalOf(deps.stop);
      try {
        return await eventsFollow(client, baseUrl, { runId: positionals[0] as string, after: str(values.after), until, json: values.json === true, full: values.full === true, ...deps.follow }, output, stop.signal);
      } finally {
        stop.dispose();
      }
    },
  },
  {
    words: ['mcp'],
    args: [],
    synopsis: '[--url U] [--timeout S]',
    summary: 'the ledger as an MCP server on stdio, for an MCP client (an IDE, a desktop assistant)',
    help: `Speaks MCP (JSON-RPC on standard input and output) to the MCP client that starts it, and
offers it the ledger's tools: list_agents, start_run, get_run, get_run_steps,
list_approvals, decide_approval, answer_input, audit_review (docs/mcp-server.md). Each
tool is a request to the service with the API key of ${API_KEY_ENV}, recorded as the
key's: the tools listed are those its scopes allow (GET /me at start), and
decide_approval only with runs:approve. Standard output carries the protocol only; this
command's own lines go to standard error. It ends with exit 0 when the client closes
standard input; exit 3 when the service cannot be reached at start, 4 when it refuses
the key. --timeout: how long each request may take (default: no limit, for interactive
runs).${HTTP_HELP}`,
    options: { ...URL_OPTION },
    run: async ({ values, env, output, deps }) => {
      const client = await clientOf(values, env, deps, null);
      const { baseUrlOf } = await import('./service-client');
      await import('reflect-metadata'); // @agent-ledger/mcp's entry also holds the MCP tools' Nest side
      const { mcpServe } = await import('./mcp.command');
      const stop = stopSignalOf(deps.stop);
      try {
        return await mcpServe(client, await baseUrlOf(str(values.url), env), ownVersion(), output, stop.signal);
      } finally {
        stop.dispose();
      }
    },
  },
  {
    words: ['projections', 'rebuild'],
    args: ['[name]'],
    synopsis: '[runStatus|steps|auditReview|approvals] [--config FILE]',
    summary: 'rebuild one read model, or all, then swap it in',
    help: `Works on the stores and read models of the configuration; may run while the service runs.
The rebuild is recorded in the read models' file (when, which, by whom: cli:<user>@<host>),
where the service's GET /projections/rebuild and the console's projections page show it.${STORES_HELP}`,
    options: { config: { type: 'string' } },
    run: async ({ values, positionals, env, output, deps }) => {
      const { config, cwd } = await storeVerbConfig(values, env, deps);
      const { projectionsRebuild } = await import('./projections-rebuild.command');
      return projectionsRebuild(config, positionals[0], output, cwd);
    },
  },
  {
    words: ['audit', 'review'],
    args: [],
    synopsis: '[--json] [--config FILE]',
    summary: 'totals, writes without audit, gaps, broken chains, runs failed closed',
    help: `Exit 1 when it finds a write without audit, an audit gap or a broken chain.${STORES_HELP}`,
    options: { ...JSON_OPTION, config: { type: 'string' } },
    run: async ({ values, env, output, deps }) => {
      const { config, cwd } = await storeVerbConfig(values, env, deps);
      const { auditReview } = await import('./audit-review.command');
      return auditReview(config, { json: values.json === true, cwd }, output);
    },
  },
  {
    words: ['audit', 'verify'],
    args: [],
    synopsis: '[--json] [--config FILE]',
    summary: "verify the hash chain of every run's audit stream",
    help: `Exit 1 on a broken chain.${STORES_HELP}`,
    options: { ...JSON_OPTION, config: { type: 'string' } },
    run: async ({ values, env, output, deps }) => {
      const { config, cwd } = await storeVerbConfig(values, env, deps);
      const { auditVerify } = await import('./audit-verify.command');
      return auditVerify(config, { json: values.json === true, cwd }, output);
    },
  },
];

/** `runs approve` and `runs deny`: one decision on every call a waiting run asks to have approved. */
function decideVerb(decision: 'approve' | 'deny'): Verb {
  return {
    words: ['runs', decision],
    args: ['<runId>'],
    synopsis: '<runId> [--reason R] [--round N] [--json] [--url U]',
    summary:
      decision === 'approve'
        ? 'approve the tool calls a run waits for (WAITING_FOR_APPROVAL)'
        : 'deny the tool calls a run waits for: the model is told, or the run ends (onDenial)',
    help: `One decision covers every call of the round the run waits for (see them with
agent-ledger runs get <runId>, or agent-ledger approvals list --state pending).
--reason (1 to 500 characters) is recorded with the decision; who decided is the API
key's id. --round N makes sure the decision is for that model round: another one is
refused (APPROVAL_ROUND_MISMATCH). Refusals are exit 4: RUN_NOT_WAITING_FOR_APPROVAL,
RUN_ALREADY_SETTLED, APPROVAL_ROUND_MISMATCH. A decision whose statement the audit
trail could not store yet took effect (exit 0, a warning on standard error): nothing
it allows happens before the statement is stored, or the run fails closed. The key needs
the scope runs:approve.${HTTP_HELP}${TIMEOUT_HELP}`,
    options: { reason: { type: 'string' }, round: { type: 'string' }, ...JSON_OPTION, ...URL_OPTION },
    run: async ({ values, positionals, env, output, deps }) => {
      const round = str(values.round);
      if (round !== undefined && !/^\d+$/.test(round)) throw new UsageError(`--round must be a whole number (got "${round}")`);
      const client = await clientOf(values, env, deps);
      const { runsDecide } = await runsCommands();
      return runsDecide(
        client,
        positionals[0] as string,
        { decision, reason: str(values.reason), round: round === undefined ? undefined : Number(round), json: values.json === true },
        output,
      );
    },
  };
}

const EXIT_CODES = `Exit codes: 0 done, 1 done and something is wrong (a finding; a run that did not
complete), 2 bad command line, 3 could not run (configuration, store or service
unreachable, server error), 4 the service refused the request (4xx).`;

const USAGE = `Usage: agent-ledger <command> [options]        (agent-ledger <command> --help for more; --version)

Commands:
${VERBS.map((v) => `  ${[...v.words, ...v.args].join(' ').padEnd(26)} ${v.summary}`).join('\n')}

init writes a starter project; serve and worker run the service; runs, approvals, agents, events and mcp talk to it over HTTP; projections
and audit open the stores of the configuration (the environment, --config FILE, the defaults) and name them on their first line.
${EXIT_CODES}`;

function verbSynopsis(verb: Verb): string {
  return `Usage: agent-ledger ${verb.words.join(' ')} ${verb.synopsis}\n(agent-ledger ${verb.words.join(' ')} --help for more)`;
}

async function verbHelp(verb: Verb): Promise<string> {
  const help = typeof verb.help === 'string' ? verb.help : await verb.help();
  return `Usage: agent-ledger ${[...verb.words].join(' ')} ${verb.synopsis}\n\n${verb.summary}.\n\n${help}\n\n${EXIT_CODES}`;
}

/** Options that would put a secret on the command line: refused with a pointer to the environment variable. */
const SECRET_OPTIONS = /^--(api-key|apikey|key|token|bearer)(=|$)/;

/**
 * Runs one CLI command; resolves to its exit code.
 *
 * Every verb is loaded when it runs: `--help` and `--version` load none, an
 * HTTP verb the client of the service only, and the verbs that open stores
 * or start Nest (`serve`, `worker`, `projections`, `audit`) the rest.
 */
export async function runCli(argv: readonly string[], output: CliOutput = processOutput, env: NodeJS.ProcessEnv = process.env, deps: CliDeps = {}): Promise<ExitCode> {
  const help = argv.includes('--help') || argv.includes('-h');
  const [first, second] = argv;
  if (first === '--version' || first === '-v') {
    output.out(ownVersion());
    return ExitCode.OK;
  }
  if (first === undefined || first === 'help' || (first.startsWith('-') && help)) {
    output.out(USAGE);
    return first === undefined ? ExitCode.USAGE : ExitCode.OK;
  }
  const group = VERBS.filter((v) => v.words[0] === first);
  if (group.length === 0) return usageError(output, `Unknown command: ${first}`, USAGE);
  const verb = group.find((v) => v.words.length === 1 || v.words[1] === second);
  if (verb === undefined) {
    const groupUsage = `Usage:\n${group.map((v) => `  agent-ledger ${v.words.join(' ')} ${v.synopsis}\n      ${v.summary}`).join('\n')}`;
    if (help && (second === undefined || second.startsWith('-'))) {
      output.out(groupUsage);
      return ExitCode.OK;
    }
    return usageError(output, second === undefined ? `${first}: which one?` : `Unknown command: ${first} ${second}`, groupUsage);
  }
  if (help) {
    output.out(await verbHelp(verb));
    return ExitCode.OK;
  }
  const rest = argv.slice(verb.words.length);
  const secret = rest.find((arg) => SECRET_OPTIONS.test(arg));
  if (secret !== undefined) {
    return usageError(output, `${secret.split('=')[0]} is not accepted: the API key is read from ${API_KEY_ENV} only, so that it stays out of the shell's history`, verbSynopsis(verb));
  }
  let parsed: { values: Values; positionals: string[] };
  try {
    parsed = parseArgs({ args: rest, allowPositionals: true, strict: true, options: verb.options }) as { values: Values; positionals: string[] };
  } catch (error) {
    return usageError(output, parseErrorOf(error, verb), verbSynopsis(verb));
  }
  const requiredArgs = verb.args.filter((a) => a.startsWith('<')).length;
  if (parsed.positionals.length < requiredArgs || parsed.positionals.length > verb.args.length) {
    const what = parsed.positionals.length < requiredArgs ? `missing ${verb.args.slice(parsed.positionals.length).join(' ')}` : `unexpected argument "${parsed.positionals[verb.args.length]}"`;
    return usageError(output, `agent-ledger ${verb.words.join(' ')}: ${what}`, verbSynopsis(verb));
  }
  const name = `agent-ledger ${verb.words.join(' ')}`;
  try {
    return await verb.run({ values: parsed.values, positionals: parsed.positionals, output, env, deps });
  } catch (error) {
    if (error instanceof UsageError) return usageError(output, `${name}: ${error.message}`, verbSynopsis(verb));
    const failure = error instanceof ServiceFailureError ? null : await clientFailureOf(error, str(parsed.values.url), env);
    if (failure?.refused === true) {
      output.err(`${name}: refused: ${failure.message}`);
      return ExitCode.REFUSED;
    }
    if (failure !== null) {
      output.err(`${name} failed: ${failure.message}`);
      return ExitCode.FAILURE;
    }
    if (error instanceof ServiceFailureError) {
      output.err(`${name} failed: ${error.message}`);
      return ExitCode.FAILURE;
    }
    output.err(`${name} failed: ${error instanceof Error ? error.message : String(error)}`);
    return ExitCode.FAILURE;
  }
}

/** A command line the verb's options refuse, said plainly: an unknown option is named with the verb's own. */
function parseErrorOf(error: unknown, verb: Verb): string {
  const message = error instanceof Error ? error.message : String(error);
  if ((error as { code?: unknown }).code !== 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return message;
  const option = /Unknown option '([^']+)'/.exec(message)?.[1] ?? 'an option';
  const known = Object.keys(verb.options).map((name) => `--${name}`);
  const name = `agent-ledger ${verb.words.join(' ')}`;
  return `Unknown option '${option}': ${known.length === 0 ? `${name} takes no option` : `the options of ${name} are ${known.join(', ')}`} (and --help)`;
}

function usageError(output: CliOutput, message: string, usage: string): ExitCode {
  output.err(`${message}\n\n${usage}`);
  return ExitCode.USAGE;
}

/**
 * An error of the client of the service read for a person (refused: exit 4;
 * failed: exit 3), or null for any other error. Such an error comes from an
 * HTTP verb, whose --url was read without error before the request was sent.
 */
async function clientFailureOf(error: unknown, url: string | undefined, env: NodeJS.ProcessEnv): Promise<ServiceFailure | null> {
  const { AgentLedgerError } = await import('@agent-ledger/client');
  if (!(error instanceof AgentLedgerError)) return null;
  const { baseUrlOf, serviceFailureOf } = await import('./service-client');
  return serviceFailureOf(error, await baseUrlOf(url, env));
}

/** The `runs` verbs (`runs.commands`), loaded when one of them runs. */
function runsCommands(): Promise<typeof RunsCommands> {
  return import('./runs.commands');
}

/**
 * The reader of the service's settings, loaded by the verbs that need it: it
 * brings in the packages that check the settings (the stores', the
 * runtime's, the HTTP API's, and with them Nest, after `reflect-metadata`),
 * which the HTTP verbs, `--help` and `--version` do without, and start faster.
 */
async function serviceConfigReader(): Promise<typeof ServiceConfigModule> {
  await import('reflect-metadata');
  return import('../config/service-config');
}

/** The environment with `--config` as AGENT_LEDGER_CONFIG (absolute, from `cwd`), when it is given. */
function withConfigFile(values: Values, env: NodeJS.ProcessEnv, cwd: string = process.cwd()): NodeJS.ProcessEnv {
  const file = str(values.config);
  if (file === undefined) return env;
  if (file.trim() === '') throw new UsageError('--config must name a file');
  return { ...env, AGENT_LEDGER_CONFIG: resolve(cwd, file) };
}

/**
 * The settings of a verb that opens the stores, read as `serve` and `worker`
 * read them (`--config`, the environment, the defaults), with its run store
 * required to exist (else exit 3, nothing created).
 */
async function storeVerbConfig(values: Values, given: NodeJS.ProcessEnv, deps: CliDeps): Promise<{ config: ServiceConfig; cwd: string }> {
  const cwd = deps.cwd ?? process.cwd();
  const env = withConfigFile(values, given, cwd);
  const config = (await serviceConfigReader()).readServiceConfig(env, cwd);
  const { requireExistingRunStore } = await import('./existing-store');
  requireExistingRunStore(config, env, cwd);
  return { config, cwd };
}

function str(value: string | boolean | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function required(values: Values, name: string): string {
  const value = str(values[name]);
  if (value === undefined) throw new UsageError(`--${name} is required`);
  return value;
}

/** The client of the service: `--url` or the environment's, the API key of the environment, `--timeout` (else `defaultTimeoutMs`; null: none). */
async function clientOf(values: Values, env: NodeJS.ProcessEnv, deps: CliDeps, defaultTimeoutMs: number | null = 30_000): Promise<AgentLedgerClient> {
  const timeout = str(values.timeout);
  if (timeout !== undefined && (!/^\d+(\.\d+)?$/.test(timeout) || Number(timeout) <= 0)) throw new UsageError(`--timeout must be a positive number of seconds (got "${timeout}")`);
  const { baseUrlOf, serviceClient } = await import('./service-client');
  const baseUrl = await baseUrlOf(str(values.url), env);
  if (deps.fetch === undefined) await useBaselineWasmCompilerOnly();
  const fetchFn = deps.fetch ?? ((input: string, init: RequestInit) => globalThis.fetch(input, init));
  return serviceClient(baseUrl, env, fetchFn, timeout === undefined ? (defaultTimeoutMs ?? undefined) : Number(timeout) * 1000);
}

/** The V8 versions (majors) known to have `--liftoff-only`: Node.js 20 to 25. Another one is left as it is rather than told a flag it may not know (V8 would print an error). */
const LIFTOFF_ONLY_V8_MAJORS = { min: 11, max: 14 } as const;

/**
 * Keeps WebAssembly on V8's baseline compiler (Liftoff) in this process,
 * before its first request. Node.js's `fetch` parses HTTP with llhttp
 * compiled to WebAssembly, and V8 recompiles it with TurboFan on a
 * background thread, which the process waits for when it exits: about 0.2 s
 * added to every HTTP verb on a 2-core machine (docs/benchmarks.md, "CLI
 * response time"), for an optimisation a command that sends a request or two
 * never uses. Only the HTTP verbs of the CLI's own process do this (a test's
 * `fetch` of its own is left alone); `serve` and `worker` never do.
 */
async function useBaselineWasmCompilerOnly(): Promise<void> {
  const major = Number(process.versions.v8.split('.')[0]);
  if (major >= LIFTOFF_ONLY_V8_MAJORS.min && major <= LIFTOFF_ONLY_V8_MAJORS.max) (await import('node:v8')).setFlagsFromString('--liftoff-only');
}

/** For the package's `bin` launcher. */
export { exitWhenFlushed };

if (require.main === module) {
  void runCli(process.argv.slice(2)).then((code) => exitWhenFlushed(code));
}
