/**
 * The CLI with the service on the EventStoreDB adapter (the protocol-level
 * server): the HTTP verbs through the service, and the verbs that open the
 * stores themselves (audit review, audit verify, projections rebuild) on the
 * same EventStoreDB.
 */
import { EventStoreDBClient } from '@eventstore/db-client';
import { startEsdbTestServer } from '../support/esdb-server';
import type { EsdbTestServer } from '../support/esdb-server';
import type { CliResult } from './support/cli-process';
import { printedTypes, runCliProcess } from './support/cli-process';
import type { HoldingModelServer, HttpService } from './support/http-service';
import { startHoldingModelServer, startHttpService, testAgentsYaml } from './support/http-service';
import { scaled } from '../support/time-scale';

jest.setTimeout(scaled(120_000));

function expectExit(result: CliResult, code: number): void {
  if (result.code !== code) throw new Error(`expected exit ${code}, got ${result.code}\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`);
}

describe('agent-ledger CLI with the service on EventStoreDB (e2e)', () => {
  let esdb: EsdbTestServer;
  let model: HoldingModelServer;
  let service: HttpService;
  let env: Record<string, string>;

  beforeAll(async () => {
    esdb = await startEsdbTestServer();
    model = await startHoldingModelServer();
    service = await startHttpService({ agentsYaml: testAgentsYaml(model.baseUrl), env: { EVENTSTORE_CONNECTION_STRING: esdb.connectionString } });
    // The store verbs read the same configuration as the service: its data folder (read models) and its EventStoreDB.
    env = { AGENT_LEDGER_URL: service.baseUrl, AGENT_LEDGER_DATA_DIR: service.dataDir, EVENTSTORE_CONNECTION_STRING: esdb.connectionString };
  });

  afterAll(async () => {
    await service?.stop();
    await model?.close();
    await esdb?.stop();
  });

  it('starts a run, follows it to its end, reviews the audit and verifies the chains, and rebuilds the read models', async () => {
    const started = await runCliProcess(['runs', 'start', '--agent', 'writer', '--input', 'report', '-q'], env);
    expectExit(started, 0);
    const runId = started.stdout.trim();

    const followed = await runCliProcess(['events', 'follow', runId], env);
    expectExit(followed, 0);
    expect(printedTypes(followed.stdout).at(-1)).toBe('RunCompleted');
    expect(printedTypes(followed.stdout).filter((t) => t === 'ToolExecuted')).toHaveLength(2);

    const got = await runCliProcess(['runs', 'get', runId, '--json'], env);
    expectExit(got, 0);
    expect(JSON.parse(got.stdout)).toMatchObject({ runId, status: 'COMPLETED' });

    const review = await runCliProcess(['audit', 'review', '--json'], env);
    expectExit(review, 0);
    const report = JSON.parse(review.stdout) as { stores: { runStore: { kind: string; storeId: string } }; findings: boolean; review: { totals: Record<string, number> }; chains: { runs: number; breaks: unknown[] } };
    expect(report.stores.runStore).toMatchObject({ kind: 'eventstoredb', storeId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    expect(report.findings).toBe(false);
    expect(report.review.totals).toMatchObject({ writesExecuted: 2, writesAudited: 2, writesWithoutAudit: 0 });
    expect(report.chains.runs).toBeGreaterThanOrEqual(1);
    expect(report.chains.breaks).toEqual([]);

    const verified = await runCliProcess(['audit', 'verify'], env);
    expectExit(verified, 0);
    expect(verified.stdout.split('\n')[0]).toBe(`Stores read: EventStoreDB ${env.EVENTSTORE_CONNECTION_STRING} (store ${report.stores.runStore.storeId}); settings from the environment and the defaults, no configuration file`);
    expect(verified.stdout).toMatch(/^Audit chains: \d+ runs, \d+ records, 0 broken/m);

    const rebuilt = await runCliProcess(['projections', 'rebuild', 'runStatus'], env);
    expectExit(rebuilt, 0);
    expect(rebuilt.stdout.trim().split('\n').at(-1)).toMatch(/^Rebuilt runStatus: \d+ events/);
  });

  it('the service created the workers\' consumer group; a worker configured otherwise refuses to start (exit 3), naming the setting', async () => {
    const client = EventStoreDBClient.connectionString(esdb.connectionString);
    try {
      const info = await client.getPersistentSubscriptionToAllInfo('agent-ledger-workers');
      expect(info.settings).toMatchObject({ messageTimeout: 30_000, maxRetryCount: 10 });
    } finally {
      await client.dispose();
    }
    const refused = await runCliProcess(['worker', '--concurrency', '1'], { ...env, EVENTSTORE_CONSUMER_GROUP_MAX_RETRY_COUNT: '3' });
    expectExit(refused, 3);
    expect(refused.stderr).toContain('the consumer group "agent-ledger-workers" exists with maxRetryCount 10, but this process is configured with 3');
  });
});
