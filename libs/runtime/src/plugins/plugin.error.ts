import { ConfigurationError } from '@agent-ledger/domain';

/** One reason a plugin was refused: the plugin file, and what is wrong, naming the tool, agent or provider type. */
export interface PluginProblem {
  /** The plugin file's absolute path. */
  readonly file: string;
  /** e.g. `tool "tickets.close" declares no effect: ...`. */
  readonly message: string;
}

/**
 * The plugins named in the configuration were refused. Every problem found
 * is listed (each naming its plugin file); nothing of any plugin is used.
 */
export class PluginError extends ConfigurationError {
  constructor(
    readonly problems: readonly PluginProblem[],
    options?: { cause?: unknown },
  ) {
    super(
      `Plugins refused (${problems.length} ${problems.length === 1 ? 'problem' : 'problems'}):\n` +
        problems.map((problem) => `  - plugin ${problem.file}: ${problem.message}`).join('\n'),
      options,
    );
  }
}
