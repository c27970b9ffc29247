import type { JsonObject } from '@agent-ledger/domain';

/** Whether a tool's results may contain personal or confidential data (for audit retention and redaction). */
export type ToolDataClass = 'public' | 'internal' | 'confidential' | 'personal';

/**
 * What `@Tool({...})` declares about a tool, besides its effect (which only
 * the code's `DeclaresToolEffect.getEffect()` may declare).
 */
export interface ToolMetadata {
  /** Unique name the model calls it by, e.g. `files.read`. Letters, digits, `.`, `_`, `-`; at most 64 characters. */
  readonly name: string;
  /** What it does, for the model. */
  readonly description: string;
  /** JSON Schema (draft 2020-12 subset that Ajv supports) of its arguments object. */
  readonly parameters: JsonObject;
  /**
   * How long one call may take, in seconds. A write's fence extends the lease
   * to cover it; the call's signal fires when it passes.
   * @default 300 for a write (DEFAULT_WRITE_OPERATION_DEADLINE_SECONDS); none for a read
   */
  readonly operationDeadlineSeconds?: number;
  /** @default 'internal' */
  readonly dataClass?: ToolDataClass;
}

/** A description of a tool as offered to a model. */
export interface ToolDescription {
  readonly name: string;
  readonly description: string;
  readonly parameters: JsonObject;
}
