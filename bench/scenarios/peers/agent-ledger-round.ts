/**
 * agent-ledger in the peers scenario: the steps scenario's product round
 * (`productStepRound`: `AgentLedgerModule` in the bench process, workers,
 * read models and the audit-gap saga), runs of K calls of the no-op
 * `READ_ONLY` tool, C runs in flight, fsync at every commit: on the embedded
 * store with `durability: 'powerLoss'` (in one process, or with its workers in
 * a worker process, the service's layout on a machine of several cores), or on PostgreSQL (a fresh schema of
 * the cluster DBOS uses; the adapter forces synchronous_commit=on).
 */
import { ToolEffect } from '@agent-ledger/domain';
import type { WorkerChild } from '../steps/product-round';
import { productStepRound } from '../steps/product-round';
import type { PeerWorkload, SubjectRoundResult } from './workload';

/** Where agent-ledger keeps its events in a round. */
export type AgentLedgerStore = { readonly kind: 'embedded' } | { readonly kind: 'postgres'; readonly connectionString: string; readonly schema: string };

/** Runs one agent-ledger round on a fresh data folder. */
export async function agentLedgerRound(options: {
  readonly dir: string;
  readonly store: AgentLedgerStore;
  readonly workload: PeerWorkload;
  /** The service's layout with worker processes (`WORKER_PROCESSES`): every worker in this second process, the read models and the saga in the bench's. @default one process */
  readonly worker?: WorkerChild;
}): Promise<SubjectRoundResult> {
  const { workload, store } = options;
  const round = await productStepRound({
    dir: options.dir,
    durability: 'powerLoss',
    effect: ToolEffect.READ_ONLY,
    runs: workload.runs,
    totalRuns: workload.totalRuns,
    stepsPerRun: workload.stepsPerRun,
    worker: options.worker ?? null,
    layout: 'apart',
    store: store.kind === 'embedded' ? { kind: 'sqlite' } : store,
  });
  return { stepsPerSecond: round.stepsPerSecond, p50Ms: round.p50Ms, p99Ms: round.p99Ms, toolSteps: round.toolSteps };
}
