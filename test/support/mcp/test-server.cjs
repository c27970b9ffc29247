#!/usr/bin/env node
/*
 * The tests' own MCP server, for what the reference servers cannot provoke:
 * a write that counts its executions, a hang until cancelled, a crash
 * mid-call, an error result, hints that lie, large binary results, a tool
 * list that changes, a slow tool.
 *
 * Plain CommonJS on the SDK's McpServer (no ts-node: a start costs what the
 * SDK costs). Every execution is counted in a file, `$COUNT_FILE`, one JSON
 * line each (`{tool, key, pid, ...}`): several processes may run the server.
 *
 *   node test-server.cjs                 stdio (the default)
 *   node test-server.cjs --http <port>   Streamable HTTP, stateful, at /mcp (port 0: any; the port is written
 *                                        to stdout as `listening <port>`); an unknown session answers 404;
 *                                        `POST /forget` drops every session; with TEST_SERVER_TOKEN set, every
 *                                        request needs `Authorization: Bearer <token>` (401 otherwise)
 *   node test-server.cjs --malformed     answers every request with a line that is not JSON-RPC
 *   node test-server.cjs --silent        reads its input and never answers
 *   node test-server.cjs --no-tools      a server without the tools capability
 *
 * Environment: COUNT_FILE (where executions are counted), TEST_SERVER_PAGE_SIZE (tools/list in pages of that
 * size), TEST_SERVER_TOKEN (HTTP only), TEST_SERVER_VARIANT_FILE (a file read at each start: `hints-count` gives
 * count other hints).
 */
'use strict';
/* eslint-disable @typescript-eslint/no-require-imports -- plain CommonJS, run by node without a build */
const { Buffer } = require('node:buffer');
const fs = require('node:fs');
const { setTimeout } = require('node:timers');
const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js');
const { StdioServerTransport } = require('@modelcontextprotocol/sdk/server/stdio.js');
const { z } = require('zod');

const KEY_META = 'agent-ledger/idempotency-key';
const log = (...parts) => process.stderr.write(`test-server: ${parts.join(' ')}\n`);

/** Appends one line to COUNT_FILE (synchronously: a crash right after still leaves it). */
function record(line) {
  if (process.env.COUNT_FILE) fs.appendFileSync(process.env.COUNT_FILE, `${JSON.stringify({ ...line, pid: process.pid })}\n`);
}

/** The lines of COUNT_FILE so far. */
function recorded() {
  if (!process.env.COUNT_FILE || !fs.existsSync(process.env.COUNT_FILE)) return [];
  return fs
    .readFileSync(process.env.COUNT_FILE, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line));
}

const keyOf = (extra) => (extra._meta && typeof extra._meta[KEY_META] === 'string' ? extra._meta[KEY_META] : null);
const text = (value) => ({ type: 'text', text: value });

function build() {
  const server = new McpServer({ name: 'agent-ledger-test-server', version: '1.0.0' }, { capabilities: { tools: { listChanged: true } } });

  // TEST_SERVER_VARIANT_FILE naming `hints-count`: this start of the server gives count other hints (a server upgraded between two starts).
  const variant = process.env.TEST_SERVER_VARIANT_FILE && fs.existsSync(process.env.TEST_SERVER_VARIANT_FILE) ? fs.readFileSync(process.env.TEST_SERVER_VARIANT_FILE, 'utf8').trim() : '';
  const count = server.registerTool(
    'count',
    {
      description: 'Counts its executions by idempotency key (an idempotent write).',
      inputSchema: { label: z.string().optional() },
      annotations: variant === 'hints-count' ? { readOnlyHint: false, destructiveHint: true, idempotentHint: false } : { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
    },
    async (args, extra) => {
      const key = keyOf(extra);
      record({ tool: 'count', key, label: args.label ?? null });
      const executions = recorded().filter((line) => line.tool === 'count' && line.key === key).length;
      return { content: [text(`executions for ${key}: ${executions}`)], structuredContent: { key, executions, meta: extra._meta ?? null } };
    },
  );

  server.registerTool('append', { description: 'Appends a line (no annotations).', inputSchema: { line: z.string() } }, async (args, extra) => {
    record({ tool: 'append', key: keyOf(extra), line: args.line });
    return { content: [text(`appended ${args.line}`)] };
  });

  server.registerTool('hang', { description: 'Never answers; stops when the call is cancelled.', inputSchema: {} }, async (_args, extra) => {
    record({ tool: 'hang', key: keyOf(extra), event: 'started' });
    await new Promise((resolve) => (extra.signal.aborted ? resolve() : extra.signal.addEventListener('abort', resolve, { once: true })));
    const reason = String(extra.signal.reason);
    log(`cancelled ${reason}`);
    record({ tool: 'hang', key: keyOf(extra), event: 'cancelled', reason });
    return { content: [text('cancelled')] };
  });

  server.registerTool('crash', { description: 'Exits mid-call.', inputSchema: {}, annotations: { readOnlyHint: true } }, async (_args, extra) => {
    record({ tool: 'crash', key: keyOf(extra) });
    log('crashing now');
    setTimeout(() => process.exit(7), 20);
    return new Promise(() => {});
  });

  server.registerTool('fail', { description: 'Answers with an error result.', inputSchema: { message: z.string().optional() }, annotations: { readOnlyHint: true } }, async (args) => ({
    isError: true,
    content: [text(args.message ?? 'it broke'), text('second block')],
  }));

  server.registerTool(
    'liar',
    { description: 'Says it only reads, but writes.', inputSchema: { line: z.string().optional() }, annotations: { readOnlyHint: true } },
    async (args, extra) => {
      record({ tool: 'liar', key: keyOf(extra), line: args.line ?? null });
      return { content: [text('wrote, although my hints say I only read')] };
    },
  );

  server.registerTool(
    'big-image',
    { description: 'An image, an audio clip and an embedded resource of `bytes` bytes each, and a resource link.', inputSchema: { bytes: z.number().int().min(0) }, annotations: { readOnlyHint: true } },
    async (args) => {
      const data = Buffer.alloc(args.bytes, 7).toString('base64');
      return {
        content: [
          text(`${args.bytes} bytes each`),
          { type: 'image', mimeType: 'image/png', data },
          { type: 'audio', mimeType: 'audio/wav', data },
          { type: 'resource', resource: { uri: 'test://blob/1', mimeType: 'application/octet-stream', blob: data } },
          { type: 'resource', resource: { uri: 'test://text/1', mimeType: 'text/plain', text: 'x'.repeat(args.bytes) } },
          { type: 'resource_link', uri: 'test://link/1', name: 'a link', mimeType: 'text/plain' },
        ],
        structuredContent: { bytes: args.bytes },
      };
    },
  );

  server.registerTool(
    'change',
    {
      description: 'Changes the tool list: removes count, changes its schema, its hints or its description, or adds a tool.',
      inputSchema: { what: z.enum(['remove-count', 'schema-count', 'hints-count', 'describe-count', 'add']) },
    },
    async (args) => {
      if (args.what === 'remove-count') count.remove();
      if (args.what === 'schema-count') count.update({ paramsSchema: { label: z.string().optional(), extra: z.number() } });
      if (args.what === 'hints-count') count.update({ annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false } });
      if (args.what === 'describe-count') count.update({ description: 'Counts, described anew.' });
      if (args.what === 'add') server.registerTool(`added-${Date.now()}`, { description: 'Added later.', inputSchema: {} }, async () => ({ content: [] }));
      return { content: [text(`done ${args.what}`)] };
    },
  );

  server.registerTool(
    'slow',
    { description: 'Answers after `ms` milliseconds, with progress.', inputSchema: { ms: z.number().int().min(0) }, annotations: { readOnlyHint: true } },
    async (args, extra) => {
      const steps = 4;
      for (let step = 1; step <= steps; step += 1) {
        await new Promise((resolve) => setTimeout(resolve, args.ms / steps));
        const token = extra._meta && extra._meta.progressToken;
        if (token !== undefined) await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: step, total: steps } });
      }
      return { content: [text(`slept ${args.ms} ms`)] };
    },
  );

  server.registerTool(
    'noise',
    { description: 'Writes `lines` lines to stderr.', inputSchema: { lines: z.number().int().min(0) }, annotations: { readOnlyHint: true } },
    async (args) => {
      for (let line = 1; line <= args.lines; line += 1) process.stderr.write(`noise ${line}\n`);
      return { content: [text(`wrote ${args.lines} lines`)] };
    },
  );

  paginate(server);
  return server;
}

/** With TEST_SERVER_PAGE_SIZE, tools/list answers in pages (the cursor is the offset). */
function paginate(server) {
  const size = Number(process.env.TEST_SERVER_PAGE_SIZE ?? '0');
  if (!(size > 0)) return;
  const handlers = server.server._requestHandlers;
  const list = handlers.get('tools/list');
  handlers.set('tools/list', async (request, extra) => {
    const { tools } = await list(request, extra);
    const offset = Number(request.params?.cursor ?? '0');
    const page = tools.slice(offset, offset + size);
    return offset + size < tools.length ? { tools: page, nextCursor: String(offset + size) } : { tools: page };
  });
}

function serveMalformed() {
  let buffer = '';
  process.stdin.on('data', (chunk) => {
    buffer += chunk;
    let index;
    while ((index = buffer.indexOf('\n')) >= 0) {
      buffer = buffer.slice(index + 1);
      process.stdout.write('this is not JSON-RPC\n');
    }
  });
  log('malformed mode');
}

async function serveHttp(port) {
  const http = require('node:http');
  const { randomUUID } = require('node:crypto');
  const { StreamableHTTPServerTransport } = require('@modelcontextprotocol/sdk/server/streamableHttp.js');
  const { isInitializeRequest } = require('@modelcontextprotocol/sdk/types.js');
  const sessions = new Map();
  const token = process.env.TEST_SERVER_TOKEN;
  const answer = (res, status, message) =>
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message }, id: null }));
  const server = http.createServer(async (req, res) => {
    try {
      if (token !== undefined && req.headers.authorization !== `Bearer ${token}`) return answer(res, 401, 'Unauthorized');
      if (req.url === '/forget') {
        for (const transport of [...sessions.values()]) await transport.close();
        sessions.clear();
        return res.writeHead(200).end('forgotten');
      }
      let body;
      if (req.method === 'POST') {
        const chunks = [];
        for await (const chunk of req) chunks.push(chunk);
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      }
      const sessionId = req.headers['mcp-session-id'];
      if (typeof sessionId === 'string') {
        const transport = sessions.get(sessionId);
        if (transport === undefined) return answer(res, 404, 'Session not found');
        return await transport.handleRequest(req, res, body);
      }
      if (req.method === 'POST' && isInitializeRequest(body)) {
        const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: (id) => sessions.set(id, transport) });
        transport.onclose = () => sessions.delete(transport.sessionId);
        await build().connect(transport);
        return await transport.handleRequest(req, res, body);
      }
      return answer(res, 400, 'Bad Request: no session');
    } catch (error) {
      log(`http: ${error && error.stack ? error.stack : error}`);
      if (!res.headersSent) answer(res, 500, 'Internal error');
    }
  });
  server.listen(port, '127.0.0.1', () => process.stdout.write(`listening ${server.address().port}\n`));
  process.on('SIGTERM', () => process.exit(0));
}

module.exports = { build };

if (require.main === module) {
  const argv = process.argv.slice(2);
  if (argv[0] === '--http') void serveHttp(Number(argv[1] ?? '0'));
  else if (argv[0] === '--malformed') serveMalformed();
  else if (argv[0] === '--silent') process.stdin.resume();
  else if (argv[0] === '--no-tools') new McpServer({ name: 'no-tools', version: '1.0.0' }, { capabilities: { logging: {} } }).connect(new StdioServerTransport());
  else
    build()
      .connect(new StdioServerTransport())
      .then(() => log('ready on stdio'));
}
