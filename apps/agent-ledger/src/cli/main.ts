#!/usr/bin/env node
import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { readServiceConfig } from '../config/service-config';
import { auditReview } from './audit-review.command';
import { auditVerify } from './audit-verify.command';
import { projectionsRebuild } from './projections-rebuild.command';
import type { CliOutput } from './cli-output';
import { ExitCode, processOutput } from './cli-output';

const USAGE = `Usage: agent-ledger <command> [options]

Commands:
  audit review [--json]          totals, writes without audit, gaps, broken chains, runs failed closed
  audit verify [--json]          verify the hash chain of every run's audit stream
  projections rebuild [name]     rebuild one read model (runStatus, steps, auditReview) or all, then swap it in

The stores are those of the service's configuration (environment variables,
see the README). Exit codes: 0 nothing wrong, 1 something wrong found,
2 bad command line, 3 could not run.`;

/** Runs one CLI command; resolves to its exit code. */
export async function runCli(argv: readonly string[], output: CliOutput = processOutput, env: NodeJS.ProcessEnv = process.env): Promise<ExitCode> {
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], allowPositionals: true, strict: true, options: { json: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h' } } });
  } catch (error) {
    output.err(`${error instanceof Error ? error.message : String(error)}\n\n${USAGE}`);
    return ExitCode.USAGE;
  }
  const [command, subcommand, ...rest] = parsed.positionals;
  if (parsed.values.help === true || command === undefined) {
    output.out(USAGE);
    return command === undefined && parsed.values.help !== true ? ExitCode.USAGE : ExitCode.OK;
  }
  try {
    const config = readServiceConfig(env);
    const json = parsed.values.json === true;
    if (command === 'audit' && subcommand === 'verify' && rest.length === 0) return await auditVerify(config, { json }, output);
    if (command === 'audit' && subcommand === 'review' && rest.length === 0) return await auditReview(config, { json }, output);
    if (command === 'projections' && subcommand === 'rebuild' && rest.length <= 1) return await projectionsRebuild(config, rest[0], output);
    output.err(`Unknown command: ${parsed.positionals.join(' ')}\n\n${USAGE}`);
    return ExitCode.USAGE;
  } catch (error) {
    output.err(`agent-ledger ${parsed.positionals.join(' ')} failed: ${error instanceof Error ? error.message : String(error)}`);
    return ExitCode.FAILURE;
  }
}

if (require.main === module) {
  void runCli(process.argv.slice(2)).then((code) => process.exit(code));
}
