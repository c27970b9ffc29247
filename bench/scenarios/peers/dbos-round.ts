/**
 * DBOS (`@dbos-inc/dbos-sdk`) in the peers scenario: one round in a process
 * of its own (`dbos-child.ts`), on a fresh system database of the bench's
 * private PostgreSQL cluster (the one the product's PostgreSQL rounds use).
 */
import { join } from 'node:path';
import { runChildRound } from './child-round';
import type { DbosRoundRequest } from './dbos-child';
import type { PeerPackage } from './peer-packages';
import { findPeerPackage } from './peer-packages';
import type { PeerWorkload, SubjectRoundResult } from './workload';

/** DBOS's package in the peer folder. */
export function findDbos(peerDirectory: string): PeerPackage {
  return findPeerPackage(peerDirectory, '@dbos-inc/dbos-sdk');
}

/** Runs one DBOS round. */
export async function dbosRound(options: {
  readonly peerDirectory: string;
  readonly systemDatabaseUrl: string;
  readonly workload: PeerWorkload;
  readonly timeoutMs: number;
}): Promise<{ readonly result: SubjectRoundResult; readonly details: readonly string[] }> {
  const request: DbosRoundRequest = { peerDirectory: options.peerDirectory, systemDatabaseUrl: options.systemDatabaseUrl, workload: options.workload };
  // DBOS's driver (pg) warns of a deprecated call on every launch: not the bench's output.
  return runChildRound(join(__dirname, 'dbos-child.ts'), request, { timeoutMs: options.timeoutMs, env: { NODE_NO_WARNINGS: '1' } });
}
