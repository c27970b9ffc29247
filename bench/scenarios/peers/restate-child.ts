/**
 * The process of one Restate round (forked by `restate-round.ts`): a
 * workflow of K no-op steps (`ctx.run`, each journaled by the server before
 * the body goes on) served with `@restatedev/restate-sdk` (loaded from the
 * peer folder) over HTTP/2 on a loopback port, registered with the server's
 * admin API; then C runs in flight, each invoked over the ingress HTTP API
 * (`POST /<workflow>/<key>/run`, answered when the run has ended).
 */
import { createServer } from 'node:http2';
import type { Http2Server, Http2ServerRequest, Http2ServerResponse } from 'node:http2';
import { serveOneRound } from './child-round';
import { peerRequire } from './peer-packages';
import type { PeerWorkload } from './workload';
import { closedLoop, roundResult, StepClock } from './workload';

/** What the bench sends. */
export interface RestateRoundRequest {
  readonly peerDirectory: string;
  /** `http://127.0.0.1:<port>` of the server's admin API. */
  readonly adminUrl: string;
  /** `http://127.0.0.1:<port>` of its ingress. */
  readonly ingressUrl: string;
  readonly workload: PeerWorkload;
}

/** The workflow's name in Restate. */
const WORKFLOW = 'PeersRun';

/** The handler's context: the one call used. */
interface RestateContext {
  run<T>(name: string, action: () => Promise<T>): Promise<T>;
}

/** The few exports of `@restatedev/restate-sdk` 1.14 used here (`dist/index.d.cts`). */
interface RestateSdk {
  workflow(definition: { name: string; handlers: { run: (ctx: RestateContext, input: number) => Promise<string> } }): unknown;
  createEndpointHandler(options: { services: unknown[] }): (request: Http2ServerRequest, response: Http2ServerResponse) => void;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

serveOneRound<RestateRoundRequest>(async ({ peerDirectory, adminUrl, ingressUrl, workload }) => {
  const restate = peerRequire(peerDirectory)('@restatedev/restate-sdk') as RestateSdk;
  const clock = new StepClock();
  const workflow = restate.workflow({
    name: WORKFLOW,
    handlers: {
      run: async (ctx, index) => {
        const run = clock.start();
        for (let step = 0; step < workload.stepsPerRun; step++) {
          await ctx.run('noop', async () => ({ ok: true, index, step }));
          run.step();
        }
        return 'done';
      },
    },
  });
  const endpoint: Http2Server = createServer(restate.createEndpointHandler({ services: [workflow] }));
  await new Promise<void>((resolve, reject) => {
    endpoint.once('error', reject);
    endpoint.listen(0, '127.0.0.1', () => resolve());
  });
  const address = endpoint.address();
  if (typeof address !== 'object' || address === null) throw new Error('the endpoint has no port');
  try {
    const registered = await fetch(`${adminUrl}/deployments`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ uri: `http://127.0.0.1:${address.port}` }),
    });
    if (!registered.ok) throw new Error(`registering the endpoint: HTTP ${registered.status} ${await registered.text()}`);

    const call = async (key: string, index: number): Promise<void> => {
      const response = await fetch(`${ingressUrl}/${WORKFLOW}/${key}/run`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(index) });
      const body = await response.text();
      if (response.status !== 200 || body !== '"done"') throw new Error(`run ${key}: HTTP ${response.status} ${body.slice(0, 300)}`);
    };
    // The first run waits for the registration to reach the ingress and the partitions to have a leader.
    const deadline = Date.now() + 60_000;
    for (;;) {
      try {
        await call('warmup-first', -1);
        break;
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await sleep(100);
      }
    }
    await closedLoop(workload.runs, workload.warmupRuns, (index) => call(`warmup-${index}`, -2 - index));
    clock.measure();
    const seconds = await closedLoop(workload.runs, workload.totalRuns, (index) => call(`run-${index}`, index));
    return { result: roundResult(workload, seconds, clock.latencies), details: [] };
  } finally {
    endpoint.close();
  }
});
