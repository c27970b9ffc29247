import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scaled } from '../support/time-scale';

/*
 * A test's cost must not grow with the number of files its worker ran before
 * it (docs/reliability.md, "The suite's cost"). jest-circus leaves one
 * AsyncLocalStorage per file enabled, and Node visits each on every promise;
 * test/support/release-earlier-files.ts (a setup file of every tier) disables
 * an earlier file's. Checked with the worst case, every file in one process
 * (--runInBand): 50 files each time the same promise workload, the last ones
 * against the first ones, with the repository's setup file, and without it
 * (which must show the growth, or this test could not fail).
 */

const ROOT = join(__dirname, '..', '..');
const JEST = join(ROOT, 'node_modules', 'jest', 'bin', 'jest.js');
const FILES = 50;

/** A trivial test file: awaits 100,000 resolved promises and writes how long it took, under the process's file count. */
const testFile = (out: string) => `
const { AsyncLocalStorage } = require('node:async_hooks');
const { writeFileSync } = require('node:fs');
const { join } = require('node:path');
test('the same promise workload', async () => {
  const counter = Symbol.for('agent-ledger.test.promiseCostFiles');
  const index = (AsyncLocalStorage[counter] = (AsyncLocalStorage[counter] ?? 0) + 1);
  const start = process.hrtime.bigint();
  for (let i = 0; i < 100000; i++) await Promise.resolve(i);
  writeFileSync(join(${JSON.stringify(out)}, 'file-' + String(index).padStart(3, '0') + '.json'), String(Number(process.hrtime.bigint() - start) / 1e6));
});
`;

/** Runs the files in one Jest process, with or without the setup file; the milliseconds of each file, in the order they ran. */
async function promiseCosts(withSetup: boolean): Promise<number[]> {
  const dir = mkdtempSync(join(tmpdir(), 'agent-ledger-promise-cost-'));
  try {
    const out = join(dir, 'out');
    mkdirSync(out);
    for (let i = 0; i < FILES; i++) writeFileSync(join(dir, `f${i}.test.js`), testFile(out));
    const config = {
      rootDir: dir,
      testEnvironment: 'node',
      testMatch: ['<rootDir>/*.test.js'],
      setupFiles: withSetup ? [join(ROOT, 'test', 'support', 'release-earlier-files.ts')] : [],
      transform: { '^.+\\.ts$': [join(ROOT, 'node_modules', 'ts-jest'), { tsconfig: join(ROOT, 'tsconfig.json') }] },
    };
    await new Promise<void>((resolve, reject) => {
      execFile(process.execPath, [JEST, '--config', JSON.stringify(config), '--runInBand', '--ci'], { cwd: dir, timeout: scaled(120_000) }, (error, _stdout, stderr) =>
        error === null ? resolve() : reject(new Error(`jest failed: ${error.message}\n${stderr}`)),
      );
    });
    const written = readdirSync(out).sort();
    expect(written).toHaveLength(FILES);
    return written.map((name) => Number(readFileSync(join(out, name), 'utf8')));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The fastest of the last five files against the fastest of files 2 to 6 (the
 * first pays for warming up): a loaded machine only ever adds time, so the
 * fastest of a few is the steadiest figure of what a file costs.
 */
function growth(costs: readonly number[]): number {
  return Math.min(...costs.slice(-5)) / Math.min(...costs.slice(1, 6));
}

describe('the cost of a promise does not grow with the files a worker ran before', () => {
  it(
    'with the setup file, the 50th file of one process awaits about as fast as the 2nd (less than 2x); without it, more than 3x as slowly',
    async () => {
      const released = growth(await promiseCosts(true));
      const kept = growth(await promiseCosts(false));
      console.log(`promise cost, last files / first files: ${released.toFixed(2)} with the setup file, ${kept.toFixed(2)} without`);
      expect({ released: released < 2, kept: kept > 3 }).toEqual({ released: true, kept: true });
    },
    scaled(300_000),
  );
});
