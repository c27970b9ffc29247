import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import config from '../../jest.config';
import { fileSeconds, formatTable, summarize, TIERS, tierOf } from '../../scripts/test-timings';

const ROOT = '/repo';
const file = (name: string, startTime: number, seconds: number, status = 'passed') => ({ name: join(ROOT, name), startTime, endTime: startTime + seconds * 1000, status });

describe('scripts/test-timings.js', () => {
  it("knows the tiers of jest.config.ts by their files' suffix", () => {
    const projects = (config.projects ?? []) as Array<{ displayName?: unknown; testMatch?: string[] }>;
    const fromConfig = projects.map((p) => ({ tier: String(p.displayName), suffix: (p.testMatch?.[0] ?? '').replace(/^.*\*/, '') }));
    expect([...TIERS].sort((a, b) => a.tier.localeCompare(b.tier))).toEqual(fromConfig.sort((a, b) => a.tier.localeCompare(b.tier)));
    expect(tierOf('libs/x/src/a.int-spec.ts')).toBe('integration');
    expect(tierOf('libs/x/src/a.spec.ts')).toBe('unit');
    expect(tierOf('test/browser/a.browser-spec.ts')).toBe('browser');
    expect(tierOf('README.md')).toBe('other');
  });

  it('sums each tier, names its longest file, and measures the wall time from first start to last end', () => {
    const summary = summarize(
      {
        testResults: [
          file('a.spec.ts', 0, 1.5),
          file('b.int-spec.ts', 1_500, 10, 'focused'),
          file('c.spec.ts', 11_500, 2.25, 'failed'),
          file('d.sim-spec.ts', 13_750, 90),
        ],
      },
      ROOT,
    );
    expect(summary).toEqual({
      files: 4,
      seconds: 103.8,
      wallSeconds: 103.8,
      tiers: [
        { tier: 'unit', files: 2, failed: 1, seconds: 3.8, longest: { file: 'c.spec.ts', seconds: 2.3 } },
        { tier: 'integration', files: 1, failed: 0, seconds: 10, longest: { file: 'b.int-spec.ts', seconds: 10 } },
        { tier: 'simulation', files: 1, failed: 0, seconds: 90, longest: { file: 'd.sim-spec.ts', seconds: 90 } },
      ],
    });
    expect(formatTable(summary).split('\n')).toEqual([
      'tier         files  failed  seconds  longest file',
      'unit             2       1      3.8  c.spec.ts (2.3 s)',
      'integration      1       0     10.0  b.int-spec.ts (10.0 s)',
      'simulation       1       0     90.0  d.sim-spec.ts (90.0 s)',
      'all              4            103.8  wall 103.8 s',
    ]);
  });

  it('lists the files of 3 s or more with their seconds rounded up, longest first, for the sequencer', () => {
    const seconds = fileSeconds({ testResults: [file('a.spec.ts', 0, 2.9), file('b.e2e-spec.ts', 0, 3), file('c.int-spec.ts', 0, 40.2), file('d.spec.ts', 0, 3)] }, ROOT);
    expect(Object.entries(seconds)).toEqual([
      ['c.int-spec.ts', 41],
      ['b.e2e-spec.ts', 3],
      ['d.spec.ts', 3],
    ]);
  });

  it("names a file by its path in the clone that ran it, not relative to this one (a fresh clone's report)", () => {
    const clone = mkdtempSync(join(tmpdir(), 'clone-'));
    try {
      writeFileSync(join(clone, 'jest.config.ts'), '');
      mkdirSync(join(clone, 'test', 'e2e'), { recursive: true });
      const report = { testResults: [{ name: join(clone, 'test', 'e2e', 'a.e2e-spec.ts'), startTime: 0, endTime: 4_000, status: 'passed' }] };
      expect(fileSeconds(report, '/elsewhere')).toEqual({ 'test/e2e/a.e2e-spec.ts': 4 });
      expect(summarize(report, '/elsewhere').tiers[0]?.longest.file).toBe('test/e2e/a.e2e-spec.ts');
    } finally {
      rmSync(clone, { recursive: true, force: true });
    }
  });
});
