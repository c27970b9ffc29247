#!/usr/bin/env node
/**
 * The `agent-ledger` command: runs the built CLI (`dist/cli/main.js`).
 *
 * A file of its own, checked in, rather than the built file itself: npm links
 * a package's `bin` into `node_modules/.bin` only when the file exists at
 * install time, and in this repository `npm ci` runs before the first build.
 * Without a build it says so (exit 3) instead of failing on a missing module.
 */
'use strict';
/* eslint-disable @typescript-eslint/no-require-imports -- plain CommonJS, run by node without a build */
const { existsSync } = require('node:fs');
const { join } = require('node:path');

const built = join(__dirname, '..', 'dist', 'cli', 'main.js');
if (!existsSync(built)) {
  process.stderr.write(`agent-ledger: the CLI is not built (${built} is missing): run npm run build in the repository\n`);
  process.exit(3);
}
const cli = require(built);
cli
  .runCli(process.argv.slice(2))
  .then(
    // Once the output is flushed: a pipe's writes are asynchronous on macOS.
    (code) => cli.exitWhenFlushed(code),
    (error) => {
      process.stderr.write(`agent-ledger failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exit(3);
    },
  );
