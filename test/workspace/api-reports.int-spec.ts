import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { ApiReportResult } from '../../scripts/api-report';
import { apiReports, discoverPackages, runApiExtractor } from '../../scripts/api-report';
import { scaled } from '../support/time-scale';

/*
 * The checked-in API reports (libs/<name>/api/<name>.api.md) list what each
 * library package exports, as built: a change of a package's public API that
 * is not in its report fails here (`npm run api:check` in CI's terms), so the
 * change shows in review as a change of the report (`npm run api:report`).
 * The build is tsc -b, incremental: quick when CI has built already.
 */

const ROOT = join(__dirname, '..', '..');

function failureOf(result: ApiReportResult): string | undefined {
  if (result.errorCount > 0) return `${result.name}: API Extractor failed\n${result.messages.join('\n')}`;
  if (result.changed) {
    return (
      `${result.name}: ${result.report} is out of date (npm run api:report, then commit it)\n` +
      result.messages.join('\n')
    );
  }
  return undefined;
}

describe("the library packages' API reports", () => {
  it(
    'each checked-in report is the API its package builds',
    () => {
      const results = apiReports({ check: true });
      const { packages } = discoverPackages();
      expect(results.map((r) => r.name)).toEqual(packages.map((p) => p.name));
      expect(results.length).toBeGreaterThanOrEqual(7);
      expect(results.map(failureOf).filter((f) => f !== undefined)).toEqual([]);
    },
    scaled(120_000),
  );

  it(
    'names the package whose report differs from its code, with the diff',
    () => {
      const { packages } = discoverPackages();
      const pkg = packages.find((p) => p.name === '@agent-ledger/crash-points');
      if (pkg === undefined) throw new Error('@agent-ledger/crash-points not found among the packages');
      const scratch = mkdtempSync(join(tmpdir(), 'api-report-'));
      try {
        // The checked-in report with one exported signature changed, as if the code had changed under it.
        const report = join(ROOT, 'libs', 'crash-points', 'api', 'crash-points.api.md');
        const altered = join(scratch, basename(report));
        copyFileSync(report, altered);
        const text = readFileSync(altered, 'utf8');
        const signature = /export function crashPoint\(([^)]*)\)/;
        expect(text).toMatch(signature);
        writeFileSync(altered, text.replace(signature, 'export function crashPoint($1, extra: string)'));

        const [result] = runApiExtractor({
          check: true,
          packages: [pkg],
          reportFolders: { [pkg.name]: scratch },
        });

        expect(result?.changed).toBe(true);
        expect(failureOf(result as ApiReportResult)).toMatch(/^@agent-ledger\/crash-points: .* is out of date/);
        expect(result?.messages.join('\n')).toContain('-export function crashPoint(');
      } finally {
        rmSync(scratch, { recursive: true, force: true });
      }
    },
    scaled(60_000),
  );
});
