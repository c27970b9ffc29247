/**
 * The `http` scenario's baseline: "the cost of HTTP plus one durable
 * append". A plain `node:http` server (no framework) that answers `POST
 * /runs` as the service does for a queued run: it reads and parses the same
 * JSON body, checks `agent` and `runId` by hand, appends one `RunRequested`
 * event to the run's stream in a `SqliteEventStore` (the product's embedded
 * store, its defaults: WAL, `synchronous=NORMAL`, group commit) with the
 * expected revision "no stream", and answers 202 with a body of the same
 * shape. Nothing else: no auth, no validation framework, no decider, no read
 * models, no queue index.
 *
 * Started as a child process by the scenario:
 *
 *   node -r ts-node/register/transpile-only -r tsconfig-paths/register bench/scenarios/http/baseline-server.ts <store file>
 *
 * It prints `baseline listening on http://127.0.0.1:<port>` and stops on SIGTERM (closing the store).
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ExpectedRevision } from '@agent-ledger/event-store';
import { SqliteEventStore } from '@agent-ledger/event-store';

/** The run id rule of the API (`RUN_ID_PATTERN`), checked by hand. */
const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;
/** The largest body read, as the service's default `HTTP_BODY_LIMIT_BYTES`. */
const BODY_LIMIT_BYTES = 262_144;

function answer(response: ServerResponse, status: number, body: unknown, headers: Readonly<Record<string, string>> = {}): void {
  const payload = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(payload), ...headers });
  response.end(payload);
}

function readBody(request: IncomingMessage): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= BODY_LIMIT_BYTES) chunks.push(chunk);
    });
    request.once('end', () => resolve(size > BODY_LIMIT_BYTES ? null : Buffer.concat(chunks).toString('utf8')));
    request.once('error', reject);
  });
}

async function handle(store: SqliteEventStore, request: IncomingMessage, response: ServerResponse): Promise<void> {
  if (request.method !== 'POST' || request.url !== '/runs') {
    answer(response, 404, { code: 'NOT_FOUND' });
    return;
  }
  const text = await readBody(request);
  if (text === null) {
    answer(response, 413, { code: 'PAYLOAD_TOO_LARGE' });
    return;
  }
  let body: { agent?: unknown; input?: unknown; mode?: unknown; runId?: unknown };
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    answer(response, 400, { code: 'MALFORMED_JSON' });
    return;
  }
  if (typeof body.agent !== 'string' || typeof body.runId !== 'string' || !RUN_ID.test(body.runId) || body.input === undefined) {
    answer(response, 400, { code: 'INVALID_FIELD' });
    return;
  }
  const runId = body.runId;
  await store.append(
    `run-${runId}`,
    [
      {
        id: randomUUID(),
        type: 'RunRequested',
        data: { runId, agent: body.agent, input: body.input, mode: 'queued', maxIterations: 3, requestedAt: Date.now() },
        metadata: { schemaVersion: 1, $correlationId: runId },
      },
    ],
    { expectedRevision: ExpectedRevision.NO_STREAM },
  );
  answer(response, 202, { runId, mode: 'queued', status: 'QUEUED', replayed: false }, { location: `/runs/${encodeURIComponent(runId)}` });
}

function main(): void {
  const path = process.argv[2];
  if (path === undefined) throw new Error('usage: baseline-server.ts <store file>');
  const store = SqliteEventStore.open({ path });
  const server = createServer((request, response) => {
    handle(store, request, response).catch((error: unknown) => {
      // A failed append is an answer the load generator counts (never hidden), and a line here.
      process.stderr.write(`baseline: ${error instanceof Error ? error.message : String(error)}\n`);
      if (!response.headersSent) answer(response, 500, { code: 'APPEND_FAILED', message: error instanceof Error ? error.message : String(error) });
    });
  });
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    const port = typeof address === 'object' && address !== null ? address.port : -1;
    process.stdout.write(`baseline listening on http://127.0.0.1:${port}\n`);
  });
  process.once('SIGTERM', () => {
    server.close();
    server.closeAllConnections();
    store.close().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`baseline: closing the store failed: ${error instanceof Error ? error.message : String(error)}\n`);
        process.exit(1);
      },
    );
  });
}

main();
