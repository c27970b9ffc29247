import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import config from '../../jest.config';
import { TIERS } from '../../scripts/test-timings';
import { orderFiles, TIER_ORDER } from '../support/tier-sequencer';

const ROOT = '/repo';
const file = (path: string, size = 100) => ({ path: join(ROOT, path), rootDir: ROOT, size });
const order = (files: ReturnType<typeof file>[], recorded: Record<string, number> = {}) => orderFiles(files, recorded).map((f) => f.path.slice(ROOT.length + 1));

describe('test/support/tier-sequencer.js', () => {
  it('is the sequencer of jest.config.ts, and orders every tier the configuration has', () => {
    expect(config.testSequencer).toBe('<rootDir>/test/support/tier-sequencer.js');
    expect([...TIER_ORDER].sort()).toEqual(TIERS.map((t) => t.tier).sort());
  });

  it('runs tier by tier: simulation, unit, e2e, integration, browser, and a file of no tier last', () => {
    expect(order([file('u.spec.ts'), file('x.ts'), file('test/browser/b.browser-spec.ts'), file('i.int-spec.ts'), file('s.sim-spec.ts'), file('e.e2e-spec.ts')])).toEqual([
      's.sim-spec.ts',
      'u.spec.ts',
      'e.e2e-spec.ts',
      'i.int-spec.ts',
      'test/browser/b.browser-spec.ts',
      'x.ts',
    ]);
  });

  it('within a tier, the longest recorded file first, then the files no run timed, largest first', () => {
    const files = [file('a.e2e-spec.ts', 9_000), file('b.e2e-spec.ts', 100), file('c.e2e-spec.ts', 50), file('d.e2e-spec.ts', 5_000), file('e.spec.ts', 10)];
    expect(order(files, { 'b.e2e-spec.ts': 30, 'c.e2e-spec.ts': 200, 'e.spec.ts': 500 })).toEqual(['e.spec.ts', 'c.e2e-spec.ts', 'b.e2e-spec.ts', 'a.e2e-spec.ts', 'd.e2e-spec.ts']);
  });

  it('reads recorded seconds that name test files of this repository', () => {
    const recorded = JSON.parse(readFileSync(join(__dirname, '..', 'support', 'file-seconds.json'), 'utf8')) as Record<string, number>;
    const stale = Object.keys(recorded).filter((path) => {
      try {
        readFileSync(join(__dirname, '..', '..', path));
        return false;
      } catch {
        return true;
      }
    });
    expect(stale).toEqual([]);
  });
});
