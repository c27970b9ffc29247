#!/usr/bin/env node
/*
 * The crash tier's MCP server: the tests' own server (test/support/mcp/test-server.cjs, its `count` and `append`
 * counting every execution in $COUNT_FILE) on stdio, with two things the crash checks need and the test server has
 * no reason to know:
 *
 * - Who its client is: at start it appends `{serverPid, clientPid}` to $MCP_SERVERS_FILE (its parent, the `serve`
 *   or `worker` process that started it; a COUNT_FILE line's `pid` is the server's), so that the checks find which
 *   process, hence which attempt of the step, executed each line.
 * - Killing its client in the middle of a call: while $KILL_CLIENT_FILE exists and names the tool (`count`,
 *   `append` or `any`, then optionally a regular expression the call's idempotency key must match), the first
 *   server to answer such a call claims the file (an atomic rename: one kill per arming), appends `{serverPid, clientPid, tool, key, id}` to $KILLS_FILE, SIGKILLs its client and never
 *   answers: the tool has executed (its line is in COUNT_FILE), the client never learns it. The harness tells this
 *   death from an unexpected one by $KILLS_FILE, and arms the next kill.
 */
'use strict';
/* eslint-disable @typescript-eslint/no-require-imports -- plain CommonJS, started by node as it is (no ts-node) */
const fs = require('node:fs');
const { setTimeout } = require('node:timers');
const { StdioServerTransport } = require('@modelcontextprotocol/sdk/server/stdio.js');
const { build } = require('../../support/mcp/test-server.cjs');

const KEY_META = 'agent-ledger/idempotency-key';
const log = (...parts) => process.stderr.write(`mcp-crash-server: ${parts.join(' ')}\n`);
const append = (file, line) => {
  if (file) fs.appendFileSync(file, `${JSON.stringify(line)}\n`);
};

append(process.env.MCP_SERVERS_FILE, { serverPid: process.pid, clientPid: process.ppid, at: Date.now() });

/** Claims the armed kill for a call of `tool` with `key`: true when this server won the file. */
function claimKill(tool, key) {
  const file = process.env.KILL_CLIENT_FILE;
  if (!file) return false;
  let armed;
  try {
    armed = fs.readFileSync(file, 'utf8').trim().split(' ');
  } catch {
    return false;
  }
  if (armed[0] !== 'any' && armed[0] !== tool) return false;
  if (armed[1] !== undefined && !new RegExp(armed[1]).test(key ?? '')) return false;
  try {
    fs.renameSync(file, `${file}.claimed-${process.pid}-${Date.now()}`);
    return true;
  } catch {
    return false; // another server claimed it first, or the harness disarmed it
  }
}

const transport = new StdioServerTransport();
/** The tool calls in progress: request id -> tool and idempotency key. */
const calls = new Map();
// Called before the SDK's own handler (the protocol chains an onmessage set before connect).
transport.onmessage = (message) => {
  if (message && message.method === 'tools/call' && message.id !== undefined) {
    const meta = message.params && message.params._meta;
    calls.set(message.id, { tool: message.params.name, key: meta && typeof meta[KEY_META] === 'string' ? meta[KEY_META] : null });
  }
};
const send = transport.send.bind(transport);
transport.send = (message, options) => {
  const call = message && message.id !== undefined && !('method' in message) ? calls.get(message.id) : undefined;
  if (call !== undefined) {
    calls.delete(message.id);
    if ((call.tool === 'count' || call.tool === 'append') && claimKill(call.tool, call.key)) {
      append(process.env.KILLS_FILE, { serverPid: process.pid, clientPid: process.ppid, tool: call.tool, key: call.key, id: message.id, at: Date.now() });
      log(`executed ${call.tool} for ${call.key}; killing my client ${process.ppid} before answering`);
      process.kill(process.ppid, 'SIGKILL');
      // The client is gone: its end of stdin closes. Never answer; leave once the kill has landed.
      setTimeout(() => process.exit(0), 200);
      return new Promise(() => {});
    }
  }
  return send(message, options);
};

build()
  .connect(transport)
  .then(() => log(`ready on stdio (client ${process.ppid})`));
