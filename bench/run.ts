/**
 * `npm run bench`: runs the benchmark scenarios, prints their tables, and
 * writes `bench/results/latest.json` and `bench/results/latest.svg`.
 *
 *   npm run bench                                  # every scenario, 3 rounds
 *   npm run bench -- --only steps,store --rounds 5
 *   npm run bench -- --quick                       # smoke sizes (seconds; figures mean little)
 *   npm run bench -- --out /tmp/bench              # write the results elsewhere
 *
 * Method: docs/benchmarks.md.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchContext, BenchScenario } from './support/bench-scenario';
import { ratioChart } from './support/chart';
import { machineInfo } from './support/machine';
import type { BenchReport, ScenarioReport } from './support/report';
import { formatReport, summariseScenario } from './support/report';
import { SCENARIOS, TARGET_RATIOS } from './scenarios';

/** The command line of `npm run bench`. */
export interface BenchArguments {
  readonly only: readonly string[] | null;
  readonly rounds: number;
  readonly quick: boolean;
  readonly out: string;
}

/** Parses the command line; an unknown flag or scenario is an error that names it. */
export function parseArguments(argv: readonly string[], known: readonly string[]): BenchArguments {
  let only: string[] | null = null;
  let rounds = 3;
  let quick = false;
  let out = join(__dirname, 'results');
  for (let i = 0; i < argv.length; i += 1) {
    const flag = argv[i];
    const value = () => {
      const v = argv[i + 1];
      if (v === undefined || v.startsWith('--')) throw new Error(`${flag} needs a value`);
      i += 1;
      return v;
    };
    if (flag === '--only') {
      only = value().split(',').filter((s) => s !== '');
      const unknown = only.filter((s) => !known.includes(s));
      if (unknown.length > 0) throw new Error(`--only: unknown scenario(s) ${unknown.join(', ')}; known: ${known.join(', ')}`);
    } else if (flag === '--rounds') {
      rounds = Number(value());
      if (!Number.isInteger(rounds) || rounds < 1 || rounds > 50) throw new Error('--rounds must be an integer from 1 to 50');
    } else if (flag === '--quick') {
      quick = true;
    } else if (flag === '--out') {
      out = value();
    } else {
      throw new Error(`unknown argument ${String(flag)}; known: --only <names>, --rounds <n>, --quick, --out <dir>`);
    }
  }
  return { only, rounds, quick, out };
}

/** Runs the chosen scenarios one after another; a scenario that throws is reported and the others go on. */
export async function runBench(args: BenchArguments, scenarios: readonly BenchScenario[], log: (line: string) => void): Promise<BenchReport> {
  const root = mkdtempSync(join(tmpdir(), 'agent-ledger-bench-'));
  const startedAt = new Date().toISOString();
  const machine = machineInfo(root);
  const reports: ScenarioReport[] = [];
  try {
    for (const scenario of scenarios.filter((s) => args.only === null || args.only.includes(s.name))) {
      const dirs: string[] = [];
      const context: BenchContext = {
        rounds: args.rounds,
        quick: args.quick,
        tempDir: (label) => {
          const dir = mkdtempSync(join(root, `${scenario.name}-${label.replace(/[^A-Za-z0-9]/g, '')}-`));
          dirs.push(dir);
          return dir;
        },
        log: (line) => log(`[${scenario.name}] ${line}`),
      };
      const started = Date.now();
      log(`[${scenario.name}] ${scenario.title}`);
      try {
        const result = await scenario.run(context);
        reports.push(summariseScenario(scenario.name, scenario.title, (Date.now() - started) / 1000, result));
      } catch (error) {
        const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
        log(`[${scenario.name}] FAILED: ${message}`);
        reports.push({ name: scenario.name, title: scenario.title, seconds: (Date.now() - started) / 1000, measurements: [], ratios: [], targets: [], notes: [], error: message });
      } finally {
        for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
      }
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  return { startedAt, rounds: args.rounds, quick: args.quick, machine, scenarios: reports };
}

async function main(): Promise<void> {
  const args = parseArguments(process.argv.slice(2), SCENARIOS.map((s) => s.name));
  const report = await runBench(args, SCENARIOS, (line) => process.stderr.write(`${line}\n`));
  process.stdout.write(`${formatReport(report)}\n`);
  mkdirSync(args.out, { recursive: true });
  writeFileSync(join(args.out, 'latest.json'), `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(join(args.out, 'latest.svg'), ratioChart(report, TARGET_RATIOS));
  process.stderr.write(`written: ${join(args.out, 'latest.json')}, ${join(args.out, 'latest.svg')}\n`);
  if (report.scenarios.some((s) => s.error !== undefined)) process.exitCode = 1;
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 2;
  });
}
