import { PassThrough } from 'node:stream';
import type { LedgerOperations } from './ledger-operations';
import { serveLedgerMcpStdio } from './serve-stdio';

/*
 * The stdio server's end: a client that writes its requests and closes its
 * side at once still gets every answer, and nothing but JSON-RPC lines.
 */
describe('serveLedgerMcpStdio', () => {
  it('answers every request received before the input ended, then resolves', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    let written = '';
    output.on('data', (chunk: Buffer) => (written += chunk.toString()));
    // A slow ledger: each answer comes 20 ms after the input has ended (calls in flight when the client closed its side).
    const inputEnded = new Promise<void>((resolve) => input.once('end', resolve));
    const operations = {
      getRun: async (runId: string) => {
        await inputEnded;
        await new Promise((resolve) => setTimeout(resolve, 20));
        return { runId, status: 'QUEUED' };
      },
    } as unknown as LedgerOperations;
    const served = serveLedgerMcpStdio({ operations, scopes: ['runs:read'], keyId: 'k', version: '0.0.0', input, output });
    const requests = [
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      ...[2, 3, 4].map((id) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'get_run', arguments: { runId: `r${id}` } } })),
    ];
    input.end(requests.map((request) => `${JSON.stringify(request)}\n`).join(''));
    await served;
    const answers = written
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as { id: number; result: { structuredContent?: unknown } });
    expect(answers.map((answer) => answer.id)).toEqual([1, 2, 3, 4]);
    expect(answers[3]?.result.structuredContent).toEqual({ runId: 'r4', status: 'QUEUED' });
  });

  it('stops when its signal is aborted, the input still open', async () => {
    const controller = new AbortController();
    const served = serveLedgerMcpStdio({ operations: {} as LedgerOperations, scopes: [], keyId: null, version: '0.0.0', input: new PassThrough(), output: new PassThrough(), signal: controller.signal });
    controller.abort();
    await expect(served).resolves.toBeUndefined();
  });
});
