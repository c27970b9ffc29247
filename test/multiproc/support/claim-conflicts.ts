/**
 * Claim conflicts per run, from the EventStoreDB test server's count of
 * refused appends (so that a worker killed with SIGKILL, whose own counters
 * die with it, is still counted).
 */
import type { AppendConflictStats } from '../../support/esdb-server';
import type { History } from '../../crash/support/history';

/** What the claims of a set of runs cost. */
export interface ClaimConflictFigures {
  readonly runs: number;
  /** `RunClaimed` events of those runs (the claims that won). */
  readonly claims: number;
  /** Appends to their streams that proposed a `RunClaimed` and were refused with a wrong expected revision (the claims that lost). */
  readonly conflicts: number;
  /** `conflicts / runs`. */
  readonly meanPerRun: number;
  /** `conflicts / claims`. */
  readonly perClaim: number;
  readonly maxPerRun: number;
  readonly maxRunId: string | null;
  /** How many runs had 0, 1, 2... claim conflicts. */
  readonly distribution: Readonly<Record<string, number>>;
  /** Other refused appends on those runs' streams (a reaper's requeue, a segment's event after it lost its lease...). */
  readonly otherRefusedAppends: number;
}

/** Claim conflicts of `runIds` (streams `run-<id>`), from the server's stats and the runs' events. */
export function claimConflictFigures(stats: AppendConflictStats, runIds: readonly string[], history: Pick<History, 'runs'>): ClaimConflictFigures {
  let claims = 0;
  let conflicts = 0;
  let other = 0;
  let maxPerRun = 0;
  let maxRunId: string | null = null;
  const distribution: Record<string, number> = {};
  for (const runId of runIds) {
    const stream = stats.streams[`run-${runId}`];
    const lost = stream?.byEventType['RunClaimed'] ?? 0;
    conflicts += lost;
    other += (stream?.refused ?? 0) - lost;
    claims += (history.runs.get(runId) ?? []).filter((e) => e.type === 'RunClaimed').length;
    distribution[String(lost)] = (distribution[String(lost)] ?? 0) + 1;
    if (lost > maxPerRun) {
      maxPerRun = lost;
      maxRunId = runId;
    }
  }
  return {
    runs: runIds.length,
    claims,
    conflicts,
    meanPerRun: runIds.length === 0 ? 0 : conflicts / runIds.length,
    perClaim: claims === 0 ? 0 : conflicts / claims,
    maxPerRun,
    maxRunId,
    distribution,
    otherRefusedAppends: other,
  };
}

/** One line for the test's output and the report. */
export function formatClaimConflicts(figures: ClaimConflictFigures): string {
  const spread = Object.entries(figures.distribution)
    .sort(([a], [b]) => Number(a) - Number(b))
    .map(([n, runs]) => `${n}: ${runs}`)
    .join(', ');
  return (
    `claim conflicts: ${figures.conflicts} over ${figures.runs} runs (${figures.meanPerRun.toFixed(2)} per run, ` +
    `${figures.perClaim.toFixed(2)} per won claim of ${figures.claims}), at most ${figures.maxPerRun} for one run (${figures.maxRunId ?? '-'}); ` +
    `runs by conflicts {${spread}}; other refused appends on the run streams: ${figures.otherRefusedAppends}`
  );
}
