import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ReadinessReport } from '@agent-ledger/client';
import { runCliProcess } from './support/cli-process';
import { eventually, listeningPort, request, settledRun } from './support/http-service';
import type { ServiceProcess } from './support/service-process';
import { GREETER_AGENTS_YAML, startServiceProcess } from './support/service-process';
import { scaled } from '../support/time-scale';

/**
 * The issue's scenario, on the service as a user starts it: one data folder
 * (read models, the processors' database), two event stores in turn (EVENT_STORE_PATH).
 */
describe('the service knows which store its read models and saga ledger follow (e2e)', () => {
  let dataDir: string;
  let storeDir: string;
  const children: ChildProcess[] = [];

  const start = (env: Record<string, string>): ServiceProcess => {
    const service = startServiceProcess({
        AGENT_LEDGER_DATA_DIR: dataDir,
        AGENTS_CONFIG: join(storeDir, 'agents.yaml'),
        WORKER_CONCURRENCY: '1',
        ...env,
      });
    children.push(service.child);
    return service;
  };

  const listening = async (service: ServiceProcess): Promise<string> => `http://127.0.0.1:${await listeningPort(service.child, service.output, service.exited, 'The service')}`;

  const stop = async (service: ServiceProcess): Promise<void> => {
    service.child.kill('SIGTERM');
    expect(await service.exited).toBe(0);
  };

  const runOne = async (base: string): Promise<string> => {
    const created = await request<{ runId: string }>(base, 'POST', '/runs', { agent: 'greeter', input: 'hi' });
    expect(created.status).toBe(202); // queued: a worker runs it
    const settled = await settledRun(base, created.body.runId, 30_000);
    expect(settled.status).toBe('COMPLETED');
    return created.body.runId;
  };

  const listedRuns = async (base: string): Promise<string[]> => (await request<{ runs: Array<{ runId: string }> }>(base, 'GET', '/runs')).body.runs.map((r) => r.runId).sort();

  /** Waits until /ready says ok with every projection at lag 0. */
  const readyAtLagZero = (base: string): Promise<ReadinessReport> =>
    eventually(
      async () => {
        const ready = await request<ReadinessReport>(base, 'GET', '/ready');
        return ready.status === 200 && ready.body.status === 'ok' && ready.body.projections.length > 0 && ready.body.projections.every((p) => p.lag?.events === 0) ? ready.body : undefined;
      },
      '/ready ok with every projection at lag 0',
      30_000,
    );

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'agent-ledger-identity-data-'));
    storeDir = mkdtempSync(join(tmpdir(), 'agent-ledger-identity-stores-'));
    writeFileSync(join(storeDir, 'agents.yaml'), GREETER_AGENTS_YAML);
  });

  afterEach(() => {
    for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(storeDir, { recursive: true, force: true });
  });

  it(
    'refuses another store with exit 3, naming both files and the rebuild command; with READ_MODELS_ON_STORE_MISMATCH=rebuild it starts on that store only',
    async () => {
      const storeA = join(storeDir, 'a.sqlite');
      const storeB = join(storeDir, 'b.sqlite');

      const onA = start({ EVENT_STORE_PATH: storeA });
      const baseA = await listening(onA);
      const runOfA = await runOne(baseA);
      await readyAtLagZero(baseA);
      await stop(onA);

      // Store B gets a run of its own (another data folder), so that "B's runs only" can be told from "no runs".
      const otherData = mkdtempSync(join(tmpdir(), 'agent-ledger-identity-other-'));
      let runOfB: string;
      try {
        const onB = start({ EVENT_STORE_PATH: storeB, AGENT_LEDGER_DATA_DIR: otherData });
        runOfB = await runOne(await listening(onB));
        await stop(onB);
      } finally {
        rmSync(otherData, { recursive: true, force: true });
      }

      // Same data folder, store B: refused.
      const refused = start({ EVENT_STORE_PATH: storeB });
      expect(await refused.exited).toBe(3);
      const said = refused.output();
      expect(said).toContain('agent-ledger: refusing to start: files in the data folder were made from another event store than the configured one.');
      expect(said).toContain(`the read models ${join(dataDir, 'read-models.sqlite')} were made from another event store than the run store ${storeB} (EVENT_STORE_PATH)`);
      expect(said).toContain(`the processors' database ${join(dataDir, 'processors.sqlite')} (the queue and the audit-gap saga's state) was made from another event store than the run store ${storeB}`);
      expect(said).toContain('Fix: `agent-ledger projections rebuild` with the same settings');
      expect(said).toContain('start once with READ_MODELS_ON_STORE_MISMATCH=rebuild');
      expect(said).toContain('set EVENT_STORE_PATH back to the store these files were made from');
      expect(said).not.toContain('listening on');

      // Store A again: it starts, with A's run.
      const backOnA = start({ EVENT_STORE_PATH: storeA });
      const baseBackOnA = await listening(backOnA);
      expect(await listedRuns(baseBackOnA)).toEqual([runOfA]);
      await stop(backOnA);

      // Store B with the rebuild setting: B's runs only, lag 0, ready.
      const rebuilt = start({ EVENT_STORE_PATH: storeB, READ_MODELS_ON_STORE_MISMATCH: 'rebuild' });
      const baseRebuilt = await listening(rebuilt);
      expect(rebuilt.output()).toMatch(/rebuilding them/);
      expect(rebuilt.output()).toMatch(/The processors' database .* reset it \(onStoreMismatch: reset\)/);
      expect(await listedRuns(baseRebuilt)).toEqual([runOfB]);
      const ready = await readyAtLagZero(baseRebuilt);
      expect(ready.status).toBe('ok');
      expect(await listedRuns(baseRebuilt)).toEqual([runOfB]);
      await stop(rebuilt);

      // And without the setting it now starts on B as it is.
      const again = start({ EVENT_STORE_PATH: storeB });
      expect(await listedRuns(await listening(again))).toEqual([runOfB]);
      await stop(again);

      // Back to A, the other fix: the command the refusal names, then a plain start.
      const refusedOnA = start({ EVENT_STORE_PATH: storeA });
      expect(await refusedOnA.exited).toBe(3);
      const cliEnv = { AGENT_LEDGER_DATA_DIR: dataDir, EVENT_STORE_PATH: storeA, AGENTS_CONFIG: join(storeDir, 'agents.yaml') };
      const rebuild = await runCliProcess(['projections', 'rebuild'], cliEnv);
      expect({ code: rebuild.code, stderr: rebuild.stderr }).toEqual({ code: 0, stderr: '' });
      expect(rebuild.stdout).toMatch(/Rebuilt runStatus, steps, auditReview, approvals: \d+ events/);
      expect(rebuild.stdout).toMatch(/The processors' database .* was made from another event store than .*: removed/);
      const fixed = start({ EVENT_STORE_PATH: storeA });
      const baseFixed = await listening(fixed);
      expect(await listedRuns(baseFixed)).toEqual([runOfA]);
      await readyAtLagZero(baseFixed);
      await stop(fixed);
    },
    scaled(240_000),
  );
});
