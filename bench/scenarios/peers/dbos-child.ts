/**
 * The process of one DBOS round (forked by `dbos-round.ts`): DBOS's executor
 * (`@dbos-inc/dbos-sdk`, loaded from the peer folder) on its system database,
 * a workflow of K no-op steps (`DBOS.runStep`, each checkpointed in the
 * system database when it ends), C workflows in flight, called in this
 * process as an application calls them. After the round, the system
 * database is read back: every workflow succeeded with its K steps.
 */
import { Client } from 'pg';
import { serveOneRound } from './child-round';
import { peerRequire } from './peer-packages';
import type { PeerWorkload } from './workload';
import { closedLoop, roundResult, StepClock } from './workload';

/** What the bench sends. */
export interface DbosRoundRequest {
  readonly peerDirectory: string;
  /** A database of its own on the bench's cluster (DBOS creates it at launch). */
  readonly systemDatabaseUrl: string;
  readonly workload: PeerWorkload;
}

/** The few calls of `@dbos-inc/dbos-sdk` 5.3 used here (`dist/src/dbos.d.ts`). */
interface DbosSdk {
  readonly DBOS: {
    setConfig(config: { name: string; systemDatabaseUrl: string; logLevel: string }): void;
    launch(): Promise<void>;
    shutdown(): Promise<void>;
    registerWorkflow<Args extends unknown[], Return>(body: (...args: Args) => Promise<Return>, config: { name: string }): (...args: Args) => Promise<Return>;
    runStep<Return>(body: () => Promise<Return>, config: { name: string }): Promise<Return>;
  };
}

serveOneRound<DbosRoundRequest>(async ({ peerDirectory, systemDatabaseUrl, workload }) => {
  const { DBOS } = peerRequire(peerDirectory)('@dbos-inc/dbos-sdk') as DbosSdk;
  const clock = new StepClock();
  // DBOS's defaults otherwise: its own pool of the system database, no setting of synchronous_commit (the cluster's applies).
  DBOS.setConfig({ name: 'agent-ledger-peers', systemDatabaseUrl, logLevel: 'error' });
  const workflow = DBOS.registerWorkflow(
    async (index: number) => {
      const run = clock.start();
      for (let step = 0; step < workload.stepsPerRun; step++) {
        await DBOS.runStep(async () => ({ ok: true, index, step }), { name: 'noop' });
        run.step();
      }
      return 'done';
    },
    { name: 'peersRun' },
  );
  const call = async (index: number) => {
    const outcome = await workflow(index);
    if (outcome !== 'done') throw new Error(`workflow ${index} returned ${JSON.stringify(outcome)}`);
  };
  await DBOS.launch();
  let seconds: number;
  try {
    await closedLoop(workload.runs, workload.warmupRuns, (index) => call(-1 - index));
    clock.measure();
    seconds = await closedLoop(workload.runs, workload.totalRuns, call);
  } finally {
    await DBOS.shutdown();
  }
  const result = roundResult(workload, seconds, clock.latencies);

  // Read back what DBOS recorded, on a connection of the bench's own.
  const client = new Client({ connectionString: systemDatabaseUrl });
  await client.connect();
  try {
    const count = async (sql: string) => Number((await client.query<{ n: string }>(sql)).rows[0]?.n ?? 0);
    const runs = workload.warmupRuns + workload.totalRuns;
    const succeeded = await count(`SELECT count(*) AS n FROM dbos.workflow_status WHERE status = 'SUCCESS'`);
    const steps = await count('SELECT count(*) AS n FROM dbos.operation_outputs');
    if (succeeded !== runs || steps !== runs * workload.stepsPerRun) {
      throw new Error(`the system database holds ${succeeded} succeeded workflows and ${steps} step outputs; ${runs} and ${runs * workload.stepsPerRun} expected`);
    }
    const synchronousCommit = (await client.query<{ synchronous_commit: string }>('SHOW synchronous_commit')).rows[0]?.synchronous_commit;
    return { result, details: [`synchronous_commit=${synchronousCommit} (a new session's on its system database, as DBOS's sessions get it: DBOS sets none)`] };
  } finally {
    await client.end();
  }
});
