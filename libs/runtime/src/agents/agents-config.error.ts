import { ConfigurationError } from '@agent-ledger/domain';

/** One problem found in a configuration file: where, and what is wrong. */
export interface ConfigIssue {
  /**
   * The field's path from the document's root, e.g. `agents[1].provider.baseUrl`;
   * empty for the document as a whole (unreadable file, invalid YAML).
   */
  readonly path: string;
  /** What is wrong with it, e.g. `must be an http(s) URL`. */
  readonly message: string;
}

/** How an issue reads in a message: `agents[1].provider.baseUrl must be an http(s) URL`. */
export function formatConfigIssue(issue: ConfigIssue): string {
  return issue.path === '' ? issue.message : `${issue.path} ${issue.message}`;
}

/**
 * The agents configuration file was refused. Every problem found is listed in
 * `issues` (validation does not stop at the first), each naming its field; the
 * message lists them all, one a line. Nothing of the file is used.
 */
export class AgentsConfigError extends ConfigurationError {
  constructor(
    /** The file's path, or the name given to `parseAgentsConfig`. */
    readonly source: string,
    readonly issues: readonly ConfigIssue[],
    options?: { cause?: unknown },
  ) {
    super(
      `The agents configuration ${source} is invalid (${issues.length} ${issues.length === 1 ? 'problem' : 'problems'}):\n` +
        issues.map((issue) => `  - ${formatConfigIssue(issue)}`).join('\n'),
      options,
    );
  }
}
