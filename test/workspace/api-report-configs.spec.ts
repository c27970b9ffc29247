import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { discoverPackages } from '../../scripts/api-report';

/*
 * Every library package has an API report: an api-extractor.json that
 * extends the shared settings, and its checked-in report. A new package
 * without one would publish an API that nobody reviews
 * (api-reports.int-spec.ts checks the reports' contents).
 */

const ROOT = join(__dirname, '..', '..');

interface PackageConfig {
  readonly extends?: string;
  readonly projectFolder?: string;
}

describe('API report configurations', () => {
  it('every library package (libs/*/package.json) has an api-extractor.json', () => {
    const { packages, missing } = discoverPackages();
    expect(missing).toEqual([]);
    expect(packages.length).toBeGreaterThanOrEqual(7);
  });

  it.each(discoverPackages().packages.map((p) => [p.name, p] as const))(
    '%s extends the shared settings and has its report checked in',
    (_name, pkg) => {
      const config = JSON.parse(readFileSync(pkg.config, 'utf8')) as PackageConfig;
      expect(config.extends).toBe('../../api-extractor.base.json');
      expect(config.projectFolder).toBe('.');
      const unscoped = pkg.name.replace(/^@[^/]+\//, '');
      const report = join(pkg.dir, 'api', `${unscoped}.api.md`);
      expect(existsSync(report) ? relative(ROOT, report) : `missing: ${relative(ROOT, report)}`).toBe(
        relative(ROOT, report),
      );
    },
  );
});
