import type { JsonObject } from '@agent-ledger/domain';

/** Whether a tool's results may contain personal or confidential data (for audit retention and redaction). */
export type ToolDataClass = 'public' | 'internal' | 'confidential' | 'personal';

/** Every {@link ToolDataClass}, from the least to the most sensitive. */
export const TOOL_DATA_CLASSES: readonly ToolDataClass[] = Object.freeze(['public', 'internal', 'confidential', 'personal'] as const);

/** The data class of a tool that declares none. @default 'internal' */
export const DEFAULT_TOOL_DATA_CLASS: ToolDataClass = 'internal';

/** What a tool's name must match: a letter, then letters, digits, `.`, `_` or `-`; at most 64 characters. */
export const TOOL_NAME_PATTERN = /^[A-Za-z][A-Za-z0-9._-]{0,63}$/;

/**
 * What `@Tool({...})` declares about a tool, besides its effect (which only
 * the code's `DeclaresToolEffect.getEffect()` may declare).
 */
export interface ToolMetadata {
  /** Unique name the model calls it by, e.g. `files.read`. Letters, digits, `.`, `_`, `-`; at most 64 characters (see {@link TOOL_NAME_PATTERN}). */
  readonly name: string;
  /** What it does, for the model. */
  readonly description: string;
  /** JSON Schema (draft 2020-12 subset that Ajv supports) of its arguments object: `type: 'object'` at the top. */
  readonly parameters: JsonObject;
  /**
   * How long one call may take, in seconds. A write's fence extends the lease
   * to cover it; the call's signal fires when it passes.
   * @default 300 for a write (DEFAULT_WRITE_OPERATION_DEADLINE_SECONDS); none for a read
   */
  readonly operationDeadlineSeconds?: number;
  /** @default 'internal' (see {@link DEFAULT_TOOL_DATA_CLASS}) */
  readonly dataClass?: ToolDataClass;
  /**
   * The tool's code asks a person's approval before every call, whatever its
   * effect; no configuration can waive it (an agent's
   * `approvals.preApproved` waives only the approval a write needs for its
   * effect).
   * @default false
   */
  readonly requiresApproval?: boolean;
}

/** A description of a tool as offered to a model. */
export interface ToolDescription {
  readonly name: string;
  readonly description: string;
  readonly parameters: JsonObject;
}
