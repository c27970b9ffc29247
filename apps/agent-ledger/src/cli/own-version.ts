import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The version of this CLI's package (`agent-ledger`), from the nearest `package.json` of that name above this file. */
export function ownVersion(from: string = __dirname): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const manifest = JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown; version?: unknown };
      if (manifest.name === 'agent-ledger' && typeof manifest.version === 'string') return manifest.version;
    }
    if (dirname(dir) === dir) throw new Error(`No package.json of agent-ledger above ${from}`);
  }
}
