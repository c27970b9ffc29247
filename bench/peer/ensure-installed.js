// Installs the bench-only peer dependencies of bench/peer/package.json (Emmett's SQLite event
// store, the peer of the `store` scenario) before `npm run bench`, when they are missing.
//
// The product never imports them: they live in their own package, outside the root lock file,
// and the scenario loads them at run time. Installing takes a few minutes the first time
// (sqlite3 compiles from source where no prebuilt binary fits). When the install fails, this
// prints a warning and exits 0: the store scenario then measures the product alone and says
// "peer not installed", and the other scenarios run as usual.
'use strict';
/* eslint-disable @typescript-eslint/no-require-imports -- plain CommonJS, run by node before anything is compiled */

const { spawnSync } = require('node:child_process');
const { existsSync } = require('node:fs');
const { join } = require('node:path');

const peerDirectory = __dirname;
const marker = join(peerDirectory, 'node_modules', '@event-driven-io', 'emmett-sqlite', 'package.json');

function npmCommand() {
  // Under `npm run`, npm_execpath is the npm that runs us: use the same one.
  const npmCli = process.env.npm_execpath;
  if (npmCli && /\.c?js$/.test(npmCli)) return { command: process.execPath, prefix: [npmCli] };
  return { command: process.platform === 'win32' ? 'npm.cmd' : 'npm', prefix: [] };
}

function main() {
  if (existsSync(marker)) return;
  process.stderr.write(
    'bench/peer: @event-driven-io/emmett-sqlite is not installed (it is the peer of the store scenario, ' +
      'a bench-only dependency); running `npm ci --no-audit --no-fund` in bench/peer (sqlite3 may compile from source: a few minutes)\n',
  );
  const npm = npmCommand();
  // npm's output goes to our stderr: stdout carries the benchmark tables.
  const result = spawnSync(npm.command, [...npm.prefix, 'ci', '--no-audit', '--no-fund'], {
    cwd: peerDirectory,
    stdio: ['inherit', 2, 'inherit'],
  });
  const failure =
    result.error !== undefined
      ? result.error.message
      : result.status !== 0
        ? `npm ci exited with ${result.status === null ? `signal ${result.signal}` : `code ${result.status}`}`
        : !existsSync(marker)
          ? 'npm ci succeeded but @event-driven-io/emmett-sqlite is still missing'
          : null;
  if (failure !== null) {
    process.stderr.write(
      `bench/peer: WARNING: could not install the peer (${failure}). The store scenario will measure the product alone ` +
        "and report 'peer not installed'; the other scenarios are not affected.\n",
    );
    return;
  }
  process.stderr.write('bench/peer: peer installed\n');
}

main();
