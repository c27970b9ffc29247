import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';

/** Reads a file's text, or undefined when it cannot be read (absent, not permitted). */
export type ReadText = (path: string) => string | undefined;

function readIfPresent(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** cgroup v2's quota file, then cgroup v1's pair, as a container sees its own group. */
const CGROUP_V2_CPU_MAX = '/sys/fs/cgroup/cpu.max';
const CGROUP_V1_DIRS = ['/sys/fs/cgroup/cpu', '/sys/fs/cgroup/cpu,cpuacct'];

/**
 * The whole cores the process's CPU quota allows (the cgroup's quota over its
 * period, rounded down, at least 1), or undefined when no quota is set or none
 * can be read. A container started with `--cpus=2` on a 16-core host has 2.
 */
export function cgroupCpuLimit(read: ReadText = readIfPresent): number | undefined {
  const v2 = read(CGROUP_V2_CPU_MAX)?.trim().split(/\s+/);
  if (v2 !== undefined && v2.length === 2) return coresOf(v2[0] as string, v2[1] as string);
  for (const dir of CGROUP_V1_DIRS) {
    const quota = read(`${dir}/cpu.cfs_quota_us`)?.trim();
    const period = read(`${dir}/cpu.cfs_period_us`)?.trim();
    if (quota !== undefined && period !== undefined) return coresOf(quota, period);
  }
  return undefined;
}

/** `max` or a negative quota (v1's -1): no limit. */
function coresOf(quota: string, period: string): number | undefined {
  if (!/^\d+$/.test(quota) || !/^\d+$/.test(period)) return undefined;
  const q = Number(quota);
  const p = Number(period);
  if (q === 0 || p === 0) return undefined;
  return Math.max(1, Math.floor(q / p));
}

/**
 * The cores this process may use: `os.availableParallelism()` (the CPUs it is
 * allowed to run on), bounded by its cgroup's CPU quota, which Node.js 20 does
 * not count.
 */
export function usableCores(read: ReadText = readIfPresent, parallelism: number = availableParallelism()): number {
  const limit = cgroupCpuLimit(read);
  return limit === undefined ? parallelism : Math.min(parallelism, limit);
}
