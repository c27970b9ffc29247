import { availableParallelism } from 'node:os';
import { cgroupCpuLimit, usableCores } from './usable-cores';

/** A cgroup file system of the given files. */
const files =
  (entries: Record<string, string>) =>
  (path: string): string | undefined =>
    entries[path];

describe('usableCores', () => {
  it("reads cgroup v2's cpu.max: the quota over the period, rounded down, at least one core; 'max' is no limit", () => {
    expect(cgroupCpuLimit(files({ '/sys/fs/cgroup/cpu.max': '200000 100000\n' }))).toBe(2);
    expect(cgroupCpuLimit(files({ '/sys/fs/cgroup/cpu.max': '150000 100000\n' }))).toBe(1);
    expect(cgroupCpuLimit(files({ '/sys/fs/cgroup/cpu.max': '50000 100000\n' }))).toBe(1);
    expect(cgroupCpuLimit(files({ '/sys/fs/cgroup/cpu.max': 'max 100000\n' }))).toBeUndefined();
  });

  it("reads cgroup v1's cfs quota and period (either mount name); -1 is no limit", () => {
    expect(cgroupCpuLimit(files({ '/sys/fs/cgroup/cpu/cpu.cfs_quota_us': '400000\n', '/sys/fs/cgroup/cpu/cpu.cfs_period_us': '100000\n' }))).toBe(4);
    expect(cgroupCpuLimit(files({ '/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us': '300000', '/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us': '100000' }))).toBe(3);
    expect(cgroupCpuLimit(files({ '/sys/fs/cgroup/cpu/cpu.cfs_quota_us': '-1\n', '/sys/fs/cgroup/cpu/cpu.cfs_period_us': '100000\n' }))).toBeUndefined();
  });

  it('knows no limit when no file is there or a file says nothing it understands', () => {
    expect(cgroupCpuLimit(files({}))).toBeUndefined();
    expect(cgroupCpuLimit(files({ '/sys/fs/cgroup/cpu.max': 'garbage' }))).toBeUndefined();
    expect(cgroupCpuLimit(files({ '/sys/fs/cgroup/cpu.max': '0 100000' }))).toBeUndefined();
  });

  it('takes the smaller of the CPUs the process may run on and its quota', () => {
    const twoCores = files({ '/sys/fs/cgroup/cpu.max': '200000 100000' });
    expect(usableCores(twoCores, 16)).toBe(2);
    expect(usableCores(twoCores, 1)).toBe(1);
    expect(usableCores(files({}), 16)).toBe(16);
  });

  it('on this machine, is between one and the CPUs Node.js reports', () => {
    const cores = usableCores();
    expect(cores).toBeGreaterThanOrEqual(1);
    expect(cores).toBeLessThanOrEqual(availableParallelism());
  });
});
