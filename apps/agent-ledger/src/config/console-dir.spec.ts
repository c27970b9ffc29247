import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CONSOLE_BUILD_DIR, defaultConsoleDir, findPackageRoot, PACKAGE_NAME } from './console-dir';

describe('the default CONSOLE_DIR', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'agent-ledger-root-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('walks up to the package.json of the service package, from the sources, the build and an installed copy alike', () => {
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: PACKAGE_NAME }));
    const sources = join(dir, 'src', 'config');
    const build = join(dir, 'dist', 'config');
    mkdirSync(sources, { recursive: true });
    mkdirSync(build, { recursive: true });
    expect(findPackageRoot(sources)).toBe(dir);
    expect(findPackageRoot(build)).toBe(dir);
    expect(defaultConsoleDir('/elsewhere', build)).toBe(join(dir, CONSOLE_BUILD_DIR));
  });

  it("passes another package's package.json (and a broken one) on the way up", () => {
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: PACKAGE_NAME }));
    const peer = join(dir, 'bench', 'peer');
    const broken = join(peer, 'lib');
    mkdirSync(broken, { recursive: true });
    writeFileSync(join(peer, 'package.json'), JSON.stringify({ name: 'some-peer' }));
    writeFileSync(join(broken, 'package.json'), '{ not json');
    expect(findPackageRoot(broken)).toBe(dir);
  });

  it('falls back to the working directory when no package root is above', () => {
    expect(findPackageRoot(dir)).toBeNull();
    expect(defaultConsoleDir('/srv/app', dir)).toBe(join('/srv/app', CONSOLE_BUILD_DIR));
  });

  it('finds the service package (apps/agent-ledger) from this file', () => {
    expect(findPackageRoot()).toBe(join(__dirname, '..', '..'));
  });
});
