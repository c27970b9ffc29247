// @ts-check
'use strict';
/* eslint-disable @typescript-eslint/no-require-imports -- plain CommonJS: Jest loads its sequencer without a transform */

/*
 * The order Jest hands test files to its workers: tier by tier (simulation,
 * unit, e2e, integration, browser), and within a tier the files that
 * took longest in a recorded run first (test/support/file-seconds.json, written
 * by `node scripts/test-timings.js <report> --file-seconds`), then the others
 * largest first. Tier by tier, a tier's files share the machine with each
 * other as they do when the tier runs alone, so its time in the whole run
 * compares with its time alone; longest first, a long file never starts last
 * and leaves the other workers idle while it ends. The tiers whose files are
 * few or short, and so most changed by what runs beside their first or last
 * files, meet the fewest other tiers: the simulation's two files of equal
 * length start the run together and end together, the unit files follow,
 * and the browser tier ends it, after the integration tier's shortest files.
 */

const Sequencer = require('@jest/test-sequencer').default;
const { statSync } = require('node:fs');
const { relative } = require('node:path');
const { tierOf } = require('../../scripts/test-timings');

/** @type {Record<string, number>} */
const RECORDED_SECONDS = require('./file-seconds.json');

/** The tiers in the order they run; a file of no tier runs last. */
const TIER_ORDER = ['simulation', 'unit', 'e2e', 'integration', 'browser'];

/**
 * @param {string} file a test file's path relative to the repository
 * @returns {number} its tier's place in {@link TIER_ORDER}
 */
function tierRank(file) {
  const rank = TIER_ORDER.indexOf(tierOf(file));
  return rank < 0 ? TIER_ORDER.length : rank;
}

/**
 * @param {ReadonlyArray<{ path: string, rootDir: string, size: number }>} files
 * @param {Record<string, number>} recorded seconds by path relative to rootDir
 * @returns the same files in the order they should run
 */
function orderFiles(files, recorded) {
  const keyed = files.map((file) => {
    const path = relative(file.rootDir, file.path);
    return { file, path, rank: tierRank(path), seconds: recorded[path] ?? 0 };
  });
  keyed.sort((a, b) => a.rank - b.rank || b.seconds - a.seconds || b.file.size - a.file.size || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return keyed.map((k) => k.file);
}

class TierSequencer extends Sequencer {
  /** @param {Array<import('@jest/test-result').Test>} tests */
  sort(tests) {
    const files = tests.map((test) => ({ test, path: test.path, rootDir: test.context.config.rootDir, size: statSync(test.path).size }));
    return orderFiles(files, RECORDED_SECONDS).map((file) => file.test);
  }
}

module.exports = TierSequencer;
module.exports.orderFiles = orderFiles;
module.exports.TIER_ORDER = TIER_ORDER;
