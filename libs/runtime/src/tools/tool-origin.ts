import type { ExternalToolEffect } from '@agent-ledger/domain';

/** A tool whose code is the product's or a plugin's: its effect is declared in that code. */
export interface CodeToolOrigin {
  readonly kind: 'code';
}

/**
 * A tool of an MCP server, bound by configuration: its effect was resolved
 * at start from the binding's declaration and the server's hints
 * (`resolveExternalToolEffect`).
 */
export interface McpToolOrigin extends ExternalToolEffect {
  readonly kind: 'mcp';
  /** The binding's server name (the `<server>` of `<server>.<tool>`). */
  readonly server: string;
  /** The tool's name on the MCP server. */
  readonly tool: string;
}

/** Where a registered tool comes from, and so where its effect was declared. */
export type ToolOrigin = CodeToolOrigin | McpToolOrigin;

/** The origin of every tool registered with `ToolRegistry.register`. */
export const CODE_TOOL_ORIGIN: CodeToolOrigin = Object.freeze({ kind: 'code' });
