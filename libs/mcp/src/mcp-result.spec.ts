import { createHash } from 'node:crypto';
import { recordMcpResult } from './mcp-result';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
/** The binding's limits: blocks over `maxInlineBytes` by size and digest, results up to 1 MiB. */
const limits = (maxInlineBytes: number, maxResultBytes = 1_048_576) => ({ maxInlineBytes, maxResultBytes, server: 'fs' });

describe('recordMcpResult', () => {
  it('keeps text whole, and structured content (null when absent)', () => {
    const text = 'y'.repeat(100_000);
    expect(recordMcpResult({ content: [{ type: 'text', text, annotations: { priority: 1 } }] }, 't', limits(10))).toEqual({ content: [{ type: 'text', text }], structuredContent: null, isError: false });
    expect(recordMcpResult({ content: [], structuredContent: { a: 1, b: [true] } }, 't', limits(10))).toEqual({ content: [], structuredContent: { a: 1, b: [true] }, isError: false });
    expect(recordMcpResult({}, 't', limits(10))).toEqual({ content: [], structuredContent: null, isError: false });
  });

  it('records an image, audio or embedded resource up to maxInlineBytes inline, a larger one by decoded size and sha256', () => {
    const small = Buffer.alloc(10, 1);
    const large = Buffer.alloc(11, 2);
    const result = recordMcpResult(
      {
        content: [
          { type: 'image', mimeType: 'image/png', data: small.toString('base64') },
          { type: 'audio', mimeType: 'audio/wav', data: large.toString('base64') },
          { type: 'resource', resource: { uri: 'r://blob', mimeType: 'application/octet-stream', blob: large.toString('base64') } },
          { type: 'resource', resource: { uri: 'r://text', mimeType: 'text/plain', text: 'é'.repeat(6) } },
          { type: 'resource', resource: { uri: 'r://short', text: 'ok' } },
          { type: 'resource_link', uri: 'r://link', name: 'link', description: 'a link' },
        ],
      },
      't',
      limits(10),
    );
    expect(result.content).toEqual([
      { type: 'image', mimeType: 'image/png', data: small.toString('base64') },
      { type: 'audio', mimeType: 'audio/wav', bytes: 11, sha256: sha256(large), omitted: true },
      { type: 'resource', uri: 'r://blob', mimeType: 'application/octet-stream', bytes: 11, sha256: sha256(large), omitted: true },
      { type: 'resource', uri: 'r://text', mimeType: 'text/plain', bytes: 12, sha256: sha256(Buffer.from('é'.repeat(6), 'utf8')), omitted: true },
      { type: 'resource', uri: 'r://short', mimeType: null, text: 'ok' },
      { type: 'resource_link', uri: 'r://link', name: 'link', description: 'a link' },
    ]);
  });

  it('keeps a block of an unknown type when small, by size and digest otherwise', () => {
    const result = recordMcpResult({ content: [{ type: 'future', x: 1 }, { type: 'future', x: 'z'.repeat(50) }] }, 't', limits(30));
    expect(result.content).toEqual([{ type: 'future', x: 1 }, { type: 'future', bytes: expect.any(Number), sha256: expect.any(String), omitted: true }]);
  });

  it('refuses a result whose recorded JSON is over maxResultBytes (MCP_RESULT_TOO_LARGE, clientError), naming the server and both sizes; the omitted blocks do not count', () => {
    const text = 'y'.repeat(2_000);
    const recorded = recordMcpResult({ content: [{ type: 'text', text }] }, 'fs.read', limits(10, 2_100));
    expect(Buffer.byteLength(JSON.stringify(recorded))).toBeLessThanOrEqual(2_100);
    expect(() => recordMcpResult({ content: [{ type: 'text', text: `${text}${'y'.repeat(100)}` }] }, 'fs.read', limits(10, 2_100))).toThrow(
      expect.objectContaining({
        code: 'MCP_RESULT_TOO_LARGE',
        failureClass: 'clientError',
        message: expect.stringMatching(/^MCP server fs answered fs\.read with a result of 21\d\d bytes, over its binding's maxResultBytes \(2100\): nothing of it was recorded/),
      }),
    );
    const image = Buffer.alloc(50_000, 3).toString('base64');
    expect(recordMcpResult({ content: [{ type: 'image', mimeType: 'image/png', data: image }] }, 'fs.read', limits(10, 2_100)).content).toEqual([
      expect.objectContaining({ type: 'image', bytes: 50_000, omitted: true }),
    ]);
  });

  it('throws MCP_TOOL_ERROR (clientError) for an isError result, its text blocks joined', () => {
    expect(() => recordMcpResult({ isError: true, content: [{ type: 'text', text: 'first' }, { type: 'image', data: '' }, { type: 'text', text: 'second' }] }, 'fs.read', limits(10))).toThrow(
      expect.objectContaining({ code: 'MCP_TOOL_ERROR', failureClass: 'clientError', message: 'first\nsecond', toolName: 'fs.read' }),
    );
    expect(() => recordMcpResult({ isError: true }, 'fs.read', limits(10))).toThrow('fs.read answered with an error result without text');
  });
});
