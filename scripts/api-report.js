#!/usr/bin/env node
// @ts-check
'use strict';
/* eslint-disable @typescript-eslint/no-require-imports -- plain CommonJS, run by node without a build */

/*
 * The public API of each library package, listed in a checked-in report
 * (`libs/<name>/api/<name>.api.md`) by API Extractor, so that a change of a
 * package's API shows in review as a change of that file.
 *
 *   node scripts/api-report.js            build, then rewrite the reports (npm run api:report)
 *   node scripts/api-report.js --check    build, then fail if a report differs from the code (npm run api:check)
 *   --no-build                            skip the build (the packages' dist/ must be current)
 *
 * The packages are the folders `libs/<name>` with an `api-extractor.json`; a
 * library package (a `libs/<name>/package.json`) without one is an error.
 * All packages run in this one process, on one TypeScript program.
 *
 * Rewriting the reports builds every package from scratch (`tsc -b --force`):
 * the order in which a declaration file lists an inferred union's members
 * (`"tool" | "write"`) follows the order the compiler met them, and an
 * incremental build, which checks only the changed files, can meet them in
 * another order than the clean build CI checks against.
 */

const { spawnSync } = require('node:child_process');
const { existsSync, mkdirSync, readdirSync, readFileSync } = require('node:fs');
const { join, relative } = require('node:path');

const ROOT = join(__dirname, '..');

/**
 * @typedef {object} ApiPackage
 * @property {string} name the package's name, from its package.json
 * @property {string} dir the package's folder, absolute
 * @property {string} config its api-extractor.json, absolute
 */

/**
 * @typedef {object} ApiReportResult
 * @property {string} name the package's name
 * @property {string} report the checked-in report, relative to the root
 * @property {string} actual the report generated from the code (in the package's dist/), relative to the root
 * @property {boolean} changed the generated report differs from the checked-in one (check mode), or was rewritten (local mode)
 * @property {number} errorCount API Extractor's errors (a compiler error, a missing report folder)
 * @property {number} warningCount API Extractor's warnings (e.g. ae-forgotten-export, also listed in the report)
 * @property {string[]} messages API Extractor's errors and warnings, formatted, with the diff of a changed report
 * @property {string[]} reportWarnings the warnings written into the report (e.g. ae-forgotten-export: a type used by the API but not exported)
 */

/**
 * The library packages (`libs/<name>/package.json`) and which of them have an
 * API Extractor configuration.
 * @param {string} [root]
 * @returns {{ packages: ApiPackage[], missing: string[] }} `missing`: folders (relative) of packages without one
 */
function discoverPackages(root = ROOT) {
  const libs = join(root, 'libs');
  /** @type {ApiPackage[]} */
  const packages = [];
  /** @type {string[]} */
  const missing = [];
  for (const entry of readdirSync(libs).sort()) {
    const dir = join(libs, entry);
    if (!existsSync(join(dir, 'package.json'))) continue;
    const config = join(dir, 'api-extractor.json');
    if (!existsSync(config)) {
      missing.push(relative(root, dir));
      continue;
    }
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    packages.push({ name: manifest.name, dir, config });
  }
  return { packages, missing };
}

/**
 * Builds the packages' declarations (`tsc -b`, incremental: quick when dist/ is current;
 * `force`: every package from scratch).
 * @param {ApiPackage[]} packages
 * @param {string} [root]
 * @param {{ force?: boolean }} [options]
 */
function buildPackages(packages, root = ROOT, { force = false } = {}) {
  const tsc = require.resolve('typescript/bin/tsc', { paths: [root] });
  const projects = packages.map((p) => relative(root, join(p.dir, 'tsconfig.build.json')));
  const result = spawnSync(process.execPath, [tsc, '-b', ...(force ? ['--force'] : []), ...projects], { cwd: root, encoding: 'utf8' });
  if (result.error) throw result.error;
  if (result.status !== 0) {
    throw new Error(`tsc -b ${projects.join(' ')} failed (exit ${result.status}):\n${result.stdout}${result.stderr}`);
  }
}

/**
 * Runs API Extractor for each package, in this process, on one TypeScript program.
 * @param {{ check: boolean, packages: ApiPackage[], root?: string, reportFolders?: Record<string, string> }} options
 *   `check`: compare only (a changed report is a failure); else rewrite the reports.
 *   `reportFolders`: by package name, a folder holding the report to compare with instead of
 *   the package's `api/` (the test's altered copies)
 * @returns {ApiReportResult[]}
 */
function runApiExtractor({ check, packages, root = ROOT, reportFolders = {} }) {
  const { CompilerState, Extractor, ExtractorConfig } = require(
    require.resolve('@microsoft/api-extractor', { paths: [root] }),
  );
  const configs = packages.map((p) => {
    const configObject = ExtractorConfig.loadFile(p.config);
    const reportFolder = reportFolders[p.name];
    if (reportFolder !== undefined) configObject.apiReport = { ...configObject.apiReport, reportFolder };
    return ExtractorConfig.prepare({
      configObject,
      configObjectFullPath: p.config,
      packageJsonFullPath: join(p.dir, 'package.json'),
    });
  });
  if (configs.length === 0) return [];
  // One program for every entry point: the packages' declarations import each other, and
  // building a program is most of API Extractor's time.
  const compilerState = CompilerState.create(configs[0], {
    additionalEntryPoints: configs.slice(1).map((c) => c.mainEntryPointFilePath),
  });
  return packages.map((pkg, index) => {
    const config = configs[index];
    // Local mode refuses to create a report in a folder that does not exist.
    if (!check) mkdirSync(config.reportFolder, { recursive: true });
    /** @type {string[]} */
    const messages = [];
    const result = Extractor.invoke(config, {
      localBuild: !check,
      compilerState,
      printApiReportDiff: true,
      messageCallback: (/** @type {any} */ message) => {
        message.handled = true;
        if (message.logLevel !== 'error' && message.logLevel !== 'warning') return;
        const where = message.sourceFilePath
          ? `${relative(root, message.sourceFilePath)}:${message.sourceFileLine}:${message.sourceFileColumn} - `
          : '';
        const id = message.messageId ? `(${message.messageId}) ` : '';
        messages.push(`${message.logLevel}: ${where}${id}${message.text}`);
      },
    });
    const reportName = config.reportConfigs[0].fileName;
    const actual = join(config.reportTempFolder, reportName);
    const reportWarnings = existsSync(actual)
      ? readFileSync(actual, 'utf8')
          .split('\n')
          .filter((line) => /^\s*\/\/ Warning: /.test(line))
          .map((line) => line.trim().replace(/^\/\/ Warning: /, ''))
      : [];
    return {
      name: pkg.name,
      report: relative(root, join(config.reportFolder, reportName)),
      actual: relative(root, actual),
      changed: result.apiReportChanged,
      errorCount: result.errorCount,
      warningCount: result.warningCount,
      messages,
      reportWarnings,
    };
  });
}

/**
 * Discovers, builds and runs API Extractor for every library package.
 * @param {{ check: boolean, build?: boolean, root?: string }} options
 * @returns {ApiReportResult[]}
 */
function apiReports({ check, build = true, root = ROOT }) {
  const { packages, missing } = discoverPackages(root);
  if (missing.length > 0) {
    throw new Error(
      `library packages without an api-extractor.json: ${missing.join(', ')} ` +
        '(add one extending ../../api-extractor.base.json, see docs/packages.md)',
    );
  }
  // A rewrite builds from scratch, as CI does, so that the reports it writes are the ones CI checks against.
  if (build) buildPackages(packages, root, { force: !check });
  return runApiExtractor({ check, packages, root });
}

/** @param {string[]} argv */
function main(argv) {
  const unknown = argv.filter((a) => a !== '--check' && a !== '--no-build');
  if (unknown.length > 0) {
    console.error(`api-report: unknown argument(s) ${unknown.join(' ')}; usage: api-report.js [--check] [--no-build]`);
    return 2;
  }
  const check = argv.includes('--check');
  const started = Date.now();
  const results = apiReports({ check, build: !argv.includes('--no-build') });
  let failed = 0;
  for (const r of results) {
    const bad = r.errorCount > 0 || (check && r.changed);
    if (bad) failed += 1;
    const state = r.errorCount > 0 ? 'ERROR' : !r.changed ? 'up to date' : check ? 'OUT OF DATE' : 'updated';
    console.log(`${r.name}: ${state} (${r.report})`);
    for (const m of r.messages) console.log(`  ${m.replace(/\n/g, '\n  ')}`);
    for (const w of r.reportWarnings) console.log(`  in the report: ${w}`);
    if (check && r.changed) {
      console.log(`  the code's API differs from ${r.report}: see the diff above (or diff ${r.report} ${r.actual});`);
      console.log('  if the change is meant, run `npm run api:report` and commit the report');
    }
  }
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (failed > 0) {
    console.error(`api-report: ${failed} of ${results.length} package(s) failed (${seconds} s)`);
    return 1;
  }
  console.log(`api-report: ${results.length} package(s) ${check ? 'checked' : 'reported'} (${seconds} s)`);
  return 0;
}

module.exports = { apiReports, buildPackages, discoverPackages, runApiExtractor };

if (require.main === module) {
  try {
    process.exitCode = main(process.argv.slice(2));
  } catch (error) {
    console.error(`api-report: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  }
}
