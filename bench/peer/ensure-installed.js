// Installs the bench-only peer dependencies of bench/peer/package.json before `npm run bench`,
// when any of them is missing: Emmett's SQLite event store (the peer of the `store` scenario),
// DBOS and Restate's SDK and server (the peers of the `peers` scenario).
//
// The product never imports them: they live in their own package, outside the root lock file,
// and the scenarios load them at run time. Installing takes a few minutes the first time
// (sqlite3 compiles from source where no prebuilt binary fits). When the install fails, this
// prints a warning and exits 0: a scenario whose peer is missing measures the product alone and
// says "peer not installed", and the other scenarios run as usual.
'use strict';
/* eslint-disable @typescript-eslint/no-require-imports -- plain CommonJS, run by node before anything is compiled */

const { spawnSync } = require('node:child_process');
const { existsSync } = require('node:fs');
const { join } = require('node:path');

const peerDirectory = __dirname;

/** One package.json per peer package; any of them missing means an install. */
const markers = [
  { name: '@event-driven-io/emmett-sqlite', scenario: 'store' },
  { name: '@dbos-inc/dbos-sdk', scenario: 'peers' },
  { name: '@restatedev/restate-sdk', scenario: 'peers' },
  { name: '@restatedev/restate-server', scenario: 'peers' },
].map((marker) => ({ ...marker, path: join(peerDirectory, 'node_modules', ...marker.name.split('/'), 'package.json') }));

const missingMarkers = () => markers.filter((marker) => !existsSync(marker.path));

function npmCommand() {
  // Under `npm run`, npm_execpath is the npm that runs us: use the same one.
  const npmCli = process.env.npm_execpath;
  if (npmCli && /\.c?js$/.test(npmCli)) return { command: process.execPath, prefix: [npmCli] };
  return { command: process.platform === 'win32' ? 'npm.cmd' : 'npm', prefix: [] };
}

function main() {
  const missing = missingMarkers();
  if (missing.length === 0) return;
  process.stderr.write(
    `bench/peer: ${missing.map((m) => `${m.name} (${m.scenario} scenario)`).join(', ')} not installed (bench-only dependencies); ` +
      'running `npm ci --no-audit --no-fund` in bench/peer (sqlite3 may compile from source: a few minutes)\n',
  );
  const npm = npmCommand();
  // npm's output goes to our stderr: stdout carries the benchmark tables.
  const result = spawnSync(npm.command, [...npm.prefix, 'ci', '--no-audit', '--no-fund'], {
    cwd: peerDirectory,
    stdio: ['inherit', 2, 'inherit'],
  });
  const stillMissing = missingMarkers();
  const failure =
    result.error !== undefined
      ? result.error.message
      : result.status !== 0
        ? `npm ci exited with ${result.status === null ? `signal ${result.signal}` : `code ${result.status}`}`
        : stillMissing.length > 0
          ? `npm ci succeeded but ${stillMissing.map((m) => m.name).join(', ')} still missing`
          : null;
  if (failure !== null) {
    process.stderr.write(
      `bench/peer: WARNING: could not install the peers (${failure}). A scenario whose peer is missing (store, peers) ` +
        "will measure the product alone and report 'peer not installed'; the other scenarios are not affected.\n",
    );
    return;
  }
  process.stderr.write('bench/peer: peers installed\n');
}

main();
