import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { scaled } from '../support/time-scale';

/*
 * The suite's cost must not grow with the number of files run before a test
 * (docs/reliability.md, "One process a test file"): jest.config.ts gives every
 * file a fresh worker process, and test/support/one-file-per-process.ts fails
 * a file that finds another ran in its process. Both halves are checked here
 * on the repository's own Jest configuration, with two small unit files.
 */

const ROOT = join(__dirname, '..', '..');
const JEST = join(ROOT, 'node_modules', 'jest', 'bin', 'jest.js');
const FILES = ['test/support/time-scale.spec.ts', 'test/support/clean-environment.spec.ts'];

interface FileResult {
  readonly name: string;
  readonly status: string;
  readonly message: string;
}

/** Runs Jest on the two files with the repository's configuration and `extra` flags; each file's result. */
function runJest(extra: readonly string[]): Promise<FileResult[]> {
  const args = [JEST, '--config', 'jest.config.ts', '--selectProjects', 'unit', '--ci', '--json', ...extra, '--runTestsByPath', ...FILES];
  return new Promise((resolve, reject) => {
    execFile(process.execPath, args, { cwd: ROOT, timeout: scaled(60_000), maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      try {
        const report = JSON.parse(stdout) as { testResults: FileResult[] };
        resolve(report.testResults.map(({ name, status, message }) => ({ name: name.slice(ROOT.length + 1), status, message })));
      } catch {
        reject(new Error(`jest ${extra.join(' ')} gave no JSON report (${error?.message ?? 'exit 0'})\n${stderr}`));
      }
    });
  });
}

describe('one process a test file', () => {
  it(
    "the repository's configuration runs each file in a process of its own: both files pass the guard",
    async () => {
      const results = await runJest([]);
      expect(results.map(({ name, status }) => ({ name, status })).sort((a, b) => a.name.localeCompare(b.name))).toEqual(
        [...FILES].sort().map((name) => ({ name, status: 'passed' })),
      );
    },
    scaled(90_000),
  );

  it(
    'in one shared process (--runInBand) the second file fails, and says why',
    async () => {
      const results = await runJest(['--runInBand']);
      expect(results.map((r) => r.status).sort()).toEqual(['failed', 'passed']);
      const failed = results.find((r) => r.status === 'failed');
      expect(failed?.message).toContain('has already run 1 other test file(s): every test file must run in a process of its own');
      expect(failed?.message).toContain('AsyncLocalStorage');
    },
    scaled(90_000),
  );
});
