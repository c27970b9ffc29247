#!/usr/bin/env node
// @ts-check
'use strict';
/* eslint-disable @typescript-eslint/no-require-imports -- plain CommonJS, run by node without a build */

/*
 * Where a test run's time went, per tier, from Jest's JSON report
 * (`jest --json --outputFile=<file>`; `.ci/run` writes `.ci/out/jest.json`
 * and prints this after the suite):
 *
 *   node scripts/test-timings.js .ci/out/jest.json          a table
 *   node scripts/test-timings.js .ci/out/jest.json --json   the same as JSON
 *   node scripts/test-timings.js .ci/out/jest.json --file-seconds
 *                       each file of 3 s or more and its seconds, longest first:
 *                       test/support/file-seconds.json, which orders the files
 *                       of a tier for the next runs (test/support/tier-sequencer.js)
 *
 * A tier's seconds are the sum of its files' own durations (from the start of
 * a file's first test to the end of its last, as Jest reports them), so the
 * figure of a tier in the whole run compares with that tier run alone
 * (`npm test -- --selectProjects <tier>`) whatever order the files ran in.
 * The wall time is from the first file's start to the last file's end.
 */

const { existsSync, readFileSync } = require('node:fs');
const { dirname, join, relative } = require('node:path');

/**
 * The tiers of jest.config.ts, each by the suffix of its files, most specific
 * first (`x.int-spec.ts` is not a unit file although it ends in `spec.ts`).
 */
const TIERS = [
  { tier: 'integration', suffix: '.int-spec.ts' },
  { tier: 'e2e', suffix: '.e2e-spec.ts' },
  { tier: 'simulation', suffix: '.sim-spec.ts' },
  { tier: 'browser', suffix: '.browser-spec.ts' },
  { tier: 'unit', suffix: '.spec.ts' },
];

/** @param {string} file @returns {string} the tier of a test file, or `other` */
function tierOf(file) {
  return TIERS.find(({ suffix }) => file.endsWith(suffix))?.tier ?? 'other';
}

/**
 * @param {{ testResults: Array<{ name: string, startTime: number, endTime: number, status: string }> }} report Jest's JSON report
 * @param {string} root the folder file names are shown relative to when no repository holds them
 */
function summarize(report, root) {
  /** @type {Map<string, { tier: string, files: number, failed: number, seconds: number, longest: { file: string, seconds: number } }>} */
  const tiers = new Map();
  let start = Infinity;
  let end = -Infinity;
  let seconds = 0;
  for (const result of report.testResults) {
    const file = relative(repositoryOf(result.name, root), result.name);
    const tier = tierOf(file);
    const took = Math.max(0, result.endTime - result.startTime) / 1000;
    const row = tiers.get(tier) ?? { tier, files: 0, failed: 0, seconds: 0, longest: { file: '', seconds: -1 } };
    row.files += 1;
    // Jest's file statuses: passed, failed, and `skipped` or `focused` for files with skipped tests, which did not fail.
    if (result.status === 'failed') row.failed += 1;
    row.seconds += took;
    if (took > row.longest.seconds) row.longest = { file, seconds: took };
    tiers.set(tier, row);
    seconds += took;
    start = Math.min(start, result.startTime);
    end = Math.max(end, result.endTime);
  }
  const order = ['unit', 'integration', 'e2e', 'simulation', 'browser', 'other'];
  return {
    files: report.testResults.length,
    seconds: round(seconds),
    wallSeconds: report.testResults.length === 0 ? 0 : round((end - start) / 1000),
    tiers: [...tiers.values()]
      .sort((a, b) => order.indexOf(a.tier) - order.indexOf(b.tier))
      .map((t) => ({ ...t, seconds: round(t.seconds), longest: { file: t.longest.file, seconds: round(t.longest.seconds) } })),
  };
}

/**
 * The repository a test file belongs to: the nearest folder above it holding `jest.config.ts`, so that a report
 * written by another clone (a fresh-clone CI run) names the same paths as one of this clone; `fallback` when none does
 * (the clone is gone).
 *
 * @param {string} file an absolute path, as Jest reports it
 * @param {string} fallback
 * @returns {string}
 */
function repositoryOf(file, fallback) {
  for (let dir = dirname(file); dir !== dirname(dir); dir = dirname(dir)) {
    if (existsSync(join(dir, 'jest.config.ts'))) return dir;
  }
  return fallback;
}

/** A file that took less is not worth listing in test/support/file-seconds.json: its order hardly matters. */
const FILE_SECONDS_FLOOR = 3;

/**
 * Each file of {@link FILE_SECONDS_FLOOR} seconds or more, by its path in its repository (`root` when it has none), and its seconds rounded up,
 * longest first.
 *
 * @param {{ testResults: Array<{ name: string, startTime: number, endTime: number }> }} report Jest's JSON report
 * @param {string} root
 * @returns {Record<string, number>}
 */
function fileSeconds(report, root) {
  return Object.fromEntries(
    report.testResults
      .map((result) => /** @type {[string, number]} */ ([relative(repositoryOf(result.name, root), result.name), Math.max(0, result.endTime - result.startTime) / 1000]))
      .filter(([, seconds]) => seconds >= FILE_SECONDS_FLOOR)
      .map(([file, seconds]) => /** @type {[string, number]} */ ([file, Math.ceil(seconds)]))
      .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1)),
  );
}

/** @param {number} x */
function round(x) {
  return Math.round(x * 10) / 10;
}

/** @param {ReturnType<typeof summarize>} summary @returns {string} */
function formatTable(summary) {
  const lines = ['tier         files  failed  seconds  longest file'];
  for (const t of summary.tiers) {
    lines.push(
      `${t.tier.padEnd(12)} ${String(t.files).padStart(5)}  ${String(t.failed).padStart(6)}  ${t.seconds.toFixed(1).padStart(7)}  ${t.longest.file} (${t.longest.seconds.toFixed(1)} s)`,
    );
  }
  lines.push(`all          ${String(summary.files).padStart(5)}          ${summary.seconds.toFixed(1).padStart(7)}  wall ${summary.wallSeconds.toFixed(1)} s`);
  return lines.join('\n');
}

module.exports = { TIERS, tierOf, summarize, formatTable, fileSeconds };

if (require.main === module) {
  const [file, flag] = process.argv.slice(2);
  if (file === undefined || (flag !== undefined && flag !== '--json' && flag !== '--file-seconds')) {
    console.error('usage: node scripts/test-timings.js <jest-report.json> [--json | --file-seconds]');
    process.exit(2);
  }
  const report = JSON.parse(readFileSync(file, 'utf8'));
  if (flag === '--file-seconds') console.log(JSON.stringify(fileSeconds(report, process.cwd()), null, 2));
  else {
    const summary = summarize(report, process.cwd());
    console.log(flag === '--json' ? JSON.stringify(summary, null, 2) : formatTable(summary));
  }
}
