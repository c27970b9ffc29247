/** The declarations of scripts/api-report.js (plain Node), for the tests that call it. */

/** A library package with an API Extractor configuration. */
export interface ApiPackage {
  /** The package's name, from its package.json. */
  readonly name: string;
  /** The package's folder, absolute. */
  readonly dir: string;
  /** Its api-extractor.json, absolute. */
  readonly config: string;
}

/** What API Extractor found for one package. */
export interface ApiReportResult {
  readonly name: string;
  /** The checked-in report, relative to the root. */
  readonly report: string;
  /** The report generated from the code, relative to the root. */
  readonly actual: string;
  /** The generated report differs from the checked-in one (check mode), or was rewritten (local mode). */
  readonly changed: boolean;
  readonly errorCount: number;
  readonly warningCount: number;
  /** API Extractor's errors and warnings, formatted, with the diff of a changed report. */
  readonly messages: string[];
  /** The warnings written into the report (e.g. ae-forgotten-export). */
  readonly reportWarnings: string[];
}

/** The library packages (`libs/<name>/package.json`), and the folders of those without an api-extractor.json. */
export function discoverPackages(root?: string): { packages: ApiPackage[]; missing: string[] };

/** Builds the packages' declarations (`tsc -b`, incremental); throws with tsc's output when it fails. */
export function buildPackages(packages: readonly ApiPackage[], root?: string): void;

/** Runs API Extractor for each package in this process; `check`: compare only, else rewrite the reports. */
export function runApiExtractor(options: {
  check: boolean;
  packages: readonly ApiPackage[];
  root?: string;
  reportFolders?: Readonly<Record<string, string>>;
}): ApiReportResult[];

/** Discovers (throws if a library package has no configuration), builds and runs API Extractor for every package. */
export function apiReports(options: { check: boolean; build?: boolean; root?: string }): ApiReportResult[];
