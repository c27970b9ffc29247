import type { McpToolSource } from '@agent-ledger/client';
import { toolSourceLabel } from './tool-source-label';

const mcp = (source: Partial<McpToolSource>): McpToolSource => ({
  kind: 'mcp',
  server: 'fs',
  tool: 'write_file',
  effectSource: 'declared',
  declared: 'IDEMPOTENT_WRITE',
  hinted: 'IDEMPOTENT_WRITE',
  trusted: false,
  conflict: false,
  ...source,
});

describe('toolSourceLabel', () => {
  it('says nothing of a tool of code, nor of an unknown source', () => {
    expect(toolSourceLabel({ kind: 'code' })).toBeNull();
    expect(toolSourceLabel(null)).toBeNull();
    expect(toolSourceLabel(undefined)).toBeNull();
  });

  it("names an MCP tool's server and where its effect came from", () => {
    expect(toolSourceLabel(mcp({}))).toEqual({
      text: 'mcp fs · declared',
      title: 'MCP server fs, tool write_file: declared IDEMPOTENT_WRITE, hints IDEMPOTENT_WRITE (untrusted); the effect comes from the declaration',
      conflict: false,
    });
    expect(toolSourceLabel(mcp({ effectSource: 'default', declared: null, hinted: null }))).toMatchObject({ text: 'mcp fs · default', title: expect.stringContaining('nothing declared, no hints') });
  });

  it('marks a conflict, with both effects in the title', () => {
    expect(toolSourceLabel(mcp({ effectSource: 'hint', declared: 'READ_ONLY', hinted: 'IDEMPOTENT_WRITE', conflict: true }))).toEqual({
      text: 'mcp fs · hints · conflict',
      title: 'MCP server fs, tool write_file: declared READ_ONLY, hints IDEMPOTENT_WRITE (untrusted); the effect comes from the hints; the declaration and the hints conflict: each step records it',
      conflict: true,
    });
  });
});
