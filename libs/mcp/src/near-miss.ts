import { editDistance } from '@agent-ledger/runtime';

/**
 * The offered name nearest to a bound name that is not offered, for "did you
 * mean": the closest by edit distance (case ignored), if within a third of
 * its length (at least 2); `undefined` when none is that near.
 */
export function nearestName(name: string, offered: readonly string[]): string | undefined {
  const limit = Math.max(2, Math.floor(name.length / 3));
  let best: { name: string; distance: number } | undefined;
  for (const candidate of offered) {
    const distance = editDistance(candidate.toLowerCase(), name.toLowerCase());
    if (distance <= limit && (best === undefined || distance < best.distance)) best = { name: candidate, distance };
  }
  return best?.name;
}
