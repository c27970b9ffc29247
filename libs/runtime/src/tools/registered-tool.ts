import type { ToolEffect } from '@agent-ledger/domain';
import type { AgentTool } from './agent-tool';
import type { ToolDataClass, ToolMetadata } from './tool-metadata';
import type { ToolOrigin } from './tool-origin';

/**
 * A tool as the {@link ToolRegistry} holds it: what it declared, read once
 * when it was registered. Frozen.
 */
export interface RegisteredTool {
  /** The checked `@Tool` metadata (a frozen copy). */
  readonly metadata: ToolMetadata;
  /** Its effect, as its code declared it (`effectOf(tool)`), read once at registration. */
  readonly effect: ToolEffect;
  /**
   * How long one call may take, in seconds: the declared deadline; for a
   * write that declares none, `DEFAULT_WRITE_OPERATION_DEADLINE_SECONDS`
   * (300); for a read-only tool that declares none, `null` (no deadline).
   */
  readonly operationDeadlineSeconds: number | null;
  /**
   * The declared data class.
   * @default 'internal' (DEFAULT_TOOL_DATA_CLASS)
   */
  readonly dataClass: ToolDataClass;
  /**
   * Whether the tool's code asks a person's approval before every call,
   * whatever its effect (`@Tool({ requiresApproval: true })`); no
   * configuration can waive it.
   * @default false
   */
  readonly requiresApproval: boolean;
  /** The tool instance (the Nest provider). */
  readonly tool: AgentTool;
  /**
   * Where the tool comes from: `code` (the product's or a plugin's, whose code
   * declares its effect), or `mcp` (an MCP server's, whose effect its binding
   * and the server's hints gave, and whether they conflict).
   */
  readonly origin: ToolOrigin;
}
