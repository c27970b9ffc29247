/**
 * Traces across processes, exported over OTLP: `agent-ledger serve` (no
 * worker of its own) takes the request, a `worker` process executes the run,
 * and both export to a collector this test runs. The run that waits for an
 * approval is one trace: the request's span (continuing the caller's
 * `traceparent`) in the service, and each segment in the worker, a child of
 * it, with its model and tool call spans, even the segment that resumes the
 * run after the decision.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CliProcess, CliResult } from './support/cli-process';
import { startCliProcess } from './support/cli-process';
import { eventually, request, testAgentsYaml } from './support/http-service';
import { scaled } from '../support/time-scale';

jest.setTimeout(scaled(180_000));

const CALLER_TRACE = '0af7651916cd43dd8448eb211c80319c';
const CALLER_SPAN = 'b7ad6b7169203331';

/** A span as OTLP/HTTP JSON carries it, with the service that sent it. */
interface ExportedSpan {
  readonly service: string;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly name: string;
  readonly attributes: Record<string, unknown>;
}

interface OtlpValue {
  readonly stringValue?: string;
  readonly intValue?: number | string;
  readonly boolValue?: boolean;
}
interface OtlpAttribute {
  readonly key: string;
  readonly value: OtlpValue;
}
interface OtlpExport {
  readonly resourceSpans: ReadonlyArray<{
    readonly resource: { readonly attributes: readonly OtlpAttribute[] };
    readonly scopeSpans: ReadonlyArray<{ readonly spans: ReadonlyArray<{ traceId: string; spanId: string; parentSpanId?: string; name: string; attributes?: readonly OtlpAttribute[] }> }>;
  }>;
}

const valueOf = (value: OtlpValue) => value.stringValue ?? (value.intValue === undefined ? value.boolValue : Number(value.intValue));
const attributesOf = (attributes: readonly OtlpAttribute[] = []) => Object.fromEntries(attributes.map((a) => [a.key, valueOf(a.value)]));

/** A collector of OTLP/HTTP JSON exports: every span it received. */
function startCollector(): Promise<{ server: Server; url: string; spans: ExportedSpan[] }> {
  const spans: ExportedSpan[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.url === '/v1/traces') {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpExport;
        for (const resourceSpans of body.resourceSpans) {
          const service = String(attributesOf(resourceSpans.resource.attributes)['service.name']);
          for (const scope of resourceSpans.scopeSpans) {
            for (const span of scope.spans) spans.push({ service, traceId: span.traceId, spanId: span.spanId, parentSpanId: span.parentSpanId || undefined, name: span.name, attributes: attributesOf(span.attributes) });
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, spans })));
}

function expectExit(result: CliResult, code: number): void {
  if (result.code !== code) throw new Error(`expected exit ${code}, got ${result.code}\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`);
}

describe('traces across processes (e2e)', () => {
  let dataDir: string;
  let serve: CliProcess | undefined;
  let worker: CliProcess | undefined;
  let collector: Awaited<ReturnType<typeof startCollector>>;

  beforeEach(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'agent-ledger-traces-'));
    writeFileSync(join(dataDir, 'agents.yaml'), testAgentsYaml('http://127.0.0.1:9/v1'));
    collector = await startCollector();
  });

  afterEach(async () => {
    await worker?.stop('SIGKILL');
    await serve?.stop('SIGKILL');
    await new Promise<void>((resolve) => collector.server.close(() => resolve()));
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('a run that waits for an approval is one trace, from the caller through the service\'s request to the worker\'s segments', async () => {
    const storeEnv = { AGENT_LEDGER_DATA_DIR: dataDir, AGENTS_CONFIG: join(dataDir, 'agents.yaml'), OTEL_EXPORTER_OTLP_ENDPOINT: collector.url };
    serve = startCliProcess(['serve', '--port', '0'], { ...storeEnv, WORKER_CONCURRENCY: '0', OTEL_SERVICE_NAME: 'ledger-api' });
    const [, port] = await serve.waitFor(/listening on http:\/\/127\.0\.0\.1:(\d+)/, 90_000);
    const baseUrl = `http://127.0.0.1:${port}`;
    worker = startCliProcess(['worker', '--concurrency', '1'], { ...storeEnv, OTEL_SERVICE_NAME: 'ledger-worker' });
    await worker.waitFor(/agent-ledger worker started/, 90_000);

    const started = await request<{ runId: string }>(baseUrl, 'POST', '/runs', { agent: 'approver', input: 'go' }, { traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01` });
    expect(started.status).toBe(202);
    const { runId } = started.body;
    await eventually(async () => {
      const answer = await request<{ status: string }>(baseUrl, 'GET', `/runs/${runId}`);
      return answer.body.status === 'WAITING_FOR_APPROVAL' ? true : undefined;
    }, 'the run to wait for approval');
    // The decision's request has no traceparent: the run's trace is still the one it started in.
    const decided = await request(baseUrl, 'POST', `/runs/${runId}/approval`, { decision: 'approve', reason: 'checked' });
    expect(decided.status).toBe(200);
    await eventually(async () => {
      const answer = await request<{ status: string }>(baseUrl, 'GET', `/runs/${runId}`);
      return answer.body.status === 'COMPLETED' ? true : undefined;
    }, 'the run to complete');

    // Stopped, both processes send the spans still pending.
    expectExit(await worker.stop('SIGTERM'), 0);
    worker = undefined;
    expectExit(await serve.stop('SIGTERM'), 0);
    serve = undefined;

    const inTrace = collector.spans.filter((s) => s.traceId === CALLER_TRACE);
    const http = inTrace.find((s) => s.name === 'POST /runs');
    expect(http).toMatchObject({ service: 'ledger-api', parentSpanId: CALLER_SPAN, attributes: { 'http.response.status_code': 202 } });
    const segments = inTrace.filter((s) => s.name === 'segment');
    expect(segments.map((s) => [s.service, s.parentSpanId, s.attributes['agent_ledger.segment.outcome']])).toEqual([
      ['ledger-worker', http?.spanId, 'waiting'],
      ['ledger-worker', http?.spanId, 'settled'],
    ]);
    const segmentIds = segments.map((s) => s.spanId);
    const tools = inTrace.filter((s) => s.name === 'tool call');
    expect(tools.map((s) => [s.attributes['agent_ledger.tool.name'], s.attributes['agent_ledger.tool.effect'], s.attributes['agent_ledger.audit.outcome']])).toEqual([
      ['files.write', 'IDEMPOTENT_WRITE', 'stored'],
      ['files.append', 'NON_IDEMPOTENT_WRITE', 'stored'],
    ]);
    for (const span of [...tools, ...inTrace.filter((s) => s.name === 'model call')]) expect(segmentIds).toContain(span.parentSpanId);
    // The approval's own request is a trace of its own.
    expect(collector.spans.find((s) => s.name === 'POST /runs/:runId/approval')?.traceId).not.toBe(CALLER_TRACE);
  });
});
