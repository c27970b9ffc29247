import type { JsonObject, JsonValue } from '@agent-ledger/domain';

/**
 * What a tool call receives besides its arguments.
 */
export interface ToolContext {
  readonly runId: string;
  readonly stepId: string;
  /**
   * Stable across every retry of the same step: a write tool passes it to its
   * target (or keys its own deduplication on it) so a retried call changes
   * nothing more.
   */
  readonly idempotencyKey: string;
  /** The segment's claim number (1 for the first execution). */
  readonly attempt: number;
  /**
   * Fired when the run is cancelled, the segment lost its lease, or the tool's
   * operation deadline passed. A tool should stop as soon as it can.
   */
  readonly signal: AbortSignal;
  /**
   * The input a person submitted for this step after the tool asked for it
   * (by throwing `UserInputRequired`); undefined until then. Only a
   * READ_ONLY tool may ask.
   */
  readonly userInput?: JsonValue;
  /**
   * The real, absolute path of the application's workspace folder: the one
   * the built-in `files.*` tools are confined to (`ToolsModule`'s
   * `builtins.files.workspaceDir`; in the service, `WORKSPACE_DIR`, by default
   * `<AGENT_LEDGER_DATA_DIR>/workspace`). A tool that keeps files keeps them
   * under it, never relative to the working directory: the service's own
   * folder may be read-only (a container's `/app`), and every process that
   * may execute a run's steps sees the same workspace. Undefined when the
   * application has none (`builtins.files: false`).
   */
  readonly workspaceDir?: string;
}

/**
 * A tool an agent can call. Implement it on a Nest provider decorated with
 * `@Tool({...})`. A tool that changes the world must also implement
 * `DeclaresToolEffect` (from `@agent-ledger/domain`): without it, it is
 * `READ_ONLY`, with a fail-soft audit and no write fence.
 *
 * @typeParam Args the arguments, as validated against the tool's JSON schema.
 */
export interface AgentTool<Args extends JsonObject = JsonObject> {
  /**
   * Executes one call. The returned JSON is recorded (`ToolExecuted.result`)
   * and shown to the model. A thrown error is recorded as a failed execution
   * with its failure class and shown to the model as an error result.
   */
  execute(args: Args, context: ToolContext): Promise<JsonValue>;
}
