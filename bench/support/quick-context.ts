import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchContext } from './bench-scenario';

/** A smoke run's context: the quick size, one round, folders under one temporary root. */
export interface QuickBenchContext {
  readonly context: BenchContext;
  /** The lines the scenario logged. */
  readonly lines: readonly string[];
  /** Removes the root and everything under it. */
  cleanUp(): void;
}

/** The context of a scenario's smoke test (`bench/**\/*.int-spec.ts`): the bench must not rot between its manual runs. */
export function quickBenchContext(label: string): QuickBenchContext {
  const root = mkdtempSync(join(tmpdir(), `agent-ledger-bench-${label}-`));
  const lines: string[] = [];
  let folders = 0;
  return {
    context: {
      rounds: 1,
      quick: true,
      tempDir: (name) => mkdtempSync(join(root, `${name.replace(/[^A-Za-z0-9]/g, '')}-${(folders += 1)}-`)),
      log: (line) => lines.push(line),
    },
    lines,
    cleanUp: () => rmSync(root, { recursive: true, force: true }),
  };
}
