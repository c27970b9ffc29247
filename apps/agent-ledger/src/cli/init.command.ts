import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { ownVersion } from './own-version';
import type { CliOutput } from './cli-output';
import { ExitCode } from './cli-output';
import { packageNameOf, STARTER_AGENT, STARTER_MCP_AGENT, starterFiles } from './starter-files';

/**
 * `agent-ledger init [dir]`: writes a starter project into `dir` (created when
 * missing), which must be empty: a plugin with a read-only and a write tool
 * (`src/tools.ts`), an agents file whose agent uses them with a scripted
 * model, the service's configuration (`agent-ledger.yaml`), `package.json`,
 * `tsconfig.json` and a README. With `mcp`, also the MCP filesystem server
 * bound in the agents file, its `files/` folder and an agent on its tools. A
 * folder that is not empty is refused, named, and nothing is written.
 */
export function init(dir: string, output: CliOutput, version: string = ownVersion(), options: { readonly mcp?: boolean } = {}): ExitCode {
  const target = resolve(dir);
  if (existsSync(target)) {
    if (!statSync(target).isDirectory()) {
      output.err(`agent-ledger init: ${target} is not a folder; nothing was written`);
      return ExitCode.FAILURE;
    }
    const entries = readdirSync(target);
    if (entries.length > 0) {
      const shown = entries.slice(0, 5).join(', ') + (entries.length > 5 ? ', ...' : '');
      output.err(`agent-ledger init: ${target} is not empty (${shown}): init writes into an empty folder only; nothing was written`);
      return ExitCode.FAILURE;
    }
  }
  const mcp = options.mcp === true;
  const files = starterFiles({ name: packageNameOf(basename(target)), version, mcp });
  mkdirSync(target, { recursive: true });
  for (const file of files) {
    mkdirSync(dirname(join(target, file.path)), { recursive: true });
    // 'wx': never overwrite, should anything appear in the folder meanwhile.
    writeFileSync(join(target, file.path), file.content, { flag: 'wx' });
  }
  output.out(`Wrote a starter in ${target}:`);
  for (const file of files) output.out(`  ${file.path}`);
  output.out(`
Next:
  cd ${dir}
  npm install
  npm run build
  npm run serve
and, in another terminal:
  npx agent-ledger runs start --agent ${STARTER_AGENT} --input "remember the groceries" --mode interactive${
    mcp ? `\n  npx agent-ledger runs start --agent ${STARTER_MCP_AGENT} --input "keep the groceries" --mode interactive` : ''
  }`);
  return ExitCode.OK;
}
