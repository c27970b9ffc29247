import { join } from 'node:path';

/**
 * Where the console's build is: the `console/` folder of this package
 * (`libs/http/console` in the repository, `node_modules/@agent-ledger/http/console`
 * when installed), written by `npm run console:build` and published with the
 * package. The same answer from the sources (`src/console`) and the build
 * (`dist/console`).
 */
export function builtConsoleDir(): string {
  return join(__dirname, '..', '..', 'console');
}
