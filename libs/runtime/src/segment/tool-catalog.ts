import type { JsonObject, ToolEffect } from '@agent-ledger/domain';
import type { AgentTool } from '../tools/agent-tool';
import type { ToolDescription, ToolMetadata } from '../tools/tool-metadata';
import type { ToolOrigin } from '../tools/tool-origin';

/** A tool as the runtime executes it: its declarations, its effect read from its code, and the instance. */
export interface CatalogTool {
  readonly metadata: ToolMetadata;
  readonly effect: ToolEffect;
  /** The operation deadline in seconds: the declared one, the write default, or null for a read without one. */
  readonly operationDeadlineSeconds: number | null;
  /** Whether the tool's code asks a person's approval before every call, whatever its effect (no configuration waives it). */
  readonly requiresApproval: boolean;
  readonly tool: AgentTool;
  /** Where the tool comes from, and so where its effect was declared (an MCP tool's, with any conflict); absent: code. */
  readonly origin?: ToolOrigin;
}

/** The result of checking a call's arguments against the tool's JSON schema. */
export type ArgumentsCheck = { readonly ok: true; readonly args: JsonObject } | { readonly ok: false; readonly errors: readonly string[] };

/** What the execution engine needs of the tool registry. */
export interface ToolCatalog {
  get(name: string): CatalogTool | undefined;
  /** The effect of the tool registered under `name`; `NON_IDEMPOTENT_WRITE` for an unknown name. */
  effectFor(name: string): ToolEffect;
  describe(names: readonly string[]): readonly ToolDescription[];
  validateArguments(name: string, args: unknown): ArgumentsCheck;
  /** The workspace folder a tool call gets as `ToolContext.workspaceDir`; undefined when the application has none. */
  readonly workspaceDir?: string | undefined;
}

/** Injection token of the {@link ToolCatalog} (the `ToolRegistry`). */
export const TOOL_CATALOG = Symbol('agent-ledger:ToolCatalog');
