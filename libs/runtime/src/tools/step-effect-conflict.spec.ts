import { resolveExternalToolEffect } from '@agent-ledger/domain';
import { stepEffectConflict } from './step-effect-conflict';
import { CODE_TOOL_ORIGIN } from './tool-origin';
import type { McpToolOrigin } from './tool-origin';

const origin = (...args: Parameters<typeof resolveExternalToolEffect>): McpToolOrigin => ({ kind: 'mcp', server: 'fs', tool: 'write_file', ...resolveExternalToolEffect(...args) });

describe('stepEffectConflict', () => {
  it("gives an MCP tool's conflict: the server, the tool, both effects and the trust", () => {
    expect(stepEffectConflict(origin('READ_ONLY', { idempotentHint: true }, false))).toEqual({ server: 'fs', tool: 'write_file', declared: 'READ_ONLY', hinted: 'IDEMPOTENT_WRITE', trusted: false });
    expect(stepEffectConflict(origin('IDEMPOTENT_WRITE', { readOnlyHint: true }, true))).toEqual({ server: 'fs', tool: 'write_file', declared: 'IDEMPOTENT_WRITE', hinted: 'READ_ONLY', trusted: true });
  });

  it('gives nothing for an MCP tool without a conflict, a tool of code, or no origin', () => {
    expect(stepEffectConflict(origin('READ_ONLY', { readOnlyHint: true }, false))).toBeUndefined();
    expect(stepEffectConflict(origin(undefined, { readOnlyHint: true }, true))).toBeUndefined();
    expect(stepEffectConflict(origin(undefined, undefined, false))).toBeUndefined();
    expect(stepEffectConflict(CODE_TOOL_ORIGIN)).toBeUndefined();
    expect(stepEffectConflict(undefined)).toBeUndefined();
  });
});
