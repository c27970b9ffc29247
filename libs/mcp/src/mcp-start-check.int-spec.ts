/**
 * The start-up check of the bindings: every server started in parallel, and
 * every binding that cannot be honoured refused in one ConfigurationError
 * naming the server and the tool.
 */
import { ConfigurationError } from '@agent-ledger/domain';
import { startMcpServers } from './mcp-servers';
import { CapturingLogger, TEST_SERVER, stdioBinding } from './testing';

describe('the start-up check of MCP bindings', () => {
  it('refuses every binding it cannot honour at once, each problem naming its server and tool', async () => {
    const started = Date.now();
    const refusal = await startMcpServers(
      [
        stdioBinding('good', TEST_SERVER, [{ tool: 'count', effect: 'IDEMPOTENT_WRITE' }, { tool: 'cuont' }, { tool: 'fail', name: 'good fail' }]),
        { ...stdioBinding('missing', TEST_SERVER, [{ tool: 'count' }]), transport: { type: 'stdio', command: '/no/such/binary', args: [], cwd: '.', env: {} } },
        stdioBinding('silent', TEST_SERVER, [{ tool: 'count' }], { args: ['--silent'], startTimeoutSeconds: 2 }),
        stdioBinding('garbled', TEST_SERVER, [{ tool: 'count' }], { args: ['--malformed'] }),
        stdioBinding('toolless', TEST_SERVER, [{ tool: 'count' }], { args: ['--no-tools'] }),
        { ...stdioBinding('secret', TEST_SERVER, [{ tool: 'count' }]), transport: { type: 'stdio', command: process.execPath, args: [TEST_SERVER], cwd: '.', env: { TOKEN: { fromEnv: 'AGENT_LEDGER_TEST_NO_SUCH_VARIABLE' } } } },
      ],
      { logger: new CapturingLogger(), env: {} },
    ).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refusal).toBeInstanceOf(ConfigurationError);
    const lines = (refusal as Error).message.split('\n');
    expect(lines[0]).toBe('MCP bindings refused (7 problems):');
    expect(lines).toHaveLength(8);
    expect(lines.slice(1)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^ {2}- mcpServers "good" \(the test\): tool "cuont" is not offered by the server \(it offers: append, big-image, change, count, .*; did you mean count\?\)$/),
        expect.stringMatching(/^ {2}- mcpServers "good" \(the test\): tool "fail" cannot be offered as good fail: .*name/),
        expect.stringMatching(/^ {2}- mcpServers "missing" \(the test\): could not start \/no\/such\/binary: .*ENOENT/),
        expect.stringMatching(/^ {2}- mcpServers "silent" \(the test\): could not start .*test-server\.cjs --silent: .*(timed out|within startTimeoutSeconds \(2 s\))/i),
        expect.stringMatching(/^ {2}- mcpServers "garbled" \(the test\): could not start .*test-server\.cjs --malformed: the server sent a message that is not valid JSON-RPC/),
        '  - mcpServers "toolless" (the test): the server does not offer tools (no tools capability in its initialize answer)',
        expect.stringMatching(/^ {2}- mcpServers "secret" \(the test\): could not start .*: The environment variable AGENT_LEDGER_TEST_NO_SUCH_VARIABLE \(mcpServers "secret"\.transport\.env\.TOKEN\.fromEnv\) is not set$/),
      ]),
    );
    // In parallel: the silent server's 2 s are not added to the others' starts.
    expect(Date.now() - started).toBeLessThan(20_000);
  }, 60_000);
});
