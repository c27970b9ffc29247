import { cpus, freemem, loadavg, release, totalmem } from 'node:os';
import { execFileSync } from 'node:child_process';

/** The machine a run measured, printed and written with the figures. */
export interface MachineInfo {
  readonly cores: number;
  readonly cpuModel: string;
  readonly memoryGiB: number;
  readonly freeMemoryGiB: number;
  readonly node: string;
  readonly kernel: string;
  /** The file system of the temporary folder the stores live in (e.g. `ext4`, `tmpfs`). */
  readonly tempFileSystem: string;
  readonly loadAverageAtStart: readonly number[];
}

/** Facts about this machine. */
export function machineInfo(tempDir: string): MachineInfo {
  let fileSystem = 'unknown';
  try {
    fileSystem = execFileSync('stat', ['-f', '-c', '%T', tempDir], { encoding: 'utf8' }).trim();
  } catch {
    // `stat -f` is GNU coreutils; elsewhere the field stays unknown.
  }
  return {
    cores: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    freeMemoryGiB: Math.round((freemem() / 2 ** 30) * 10) / 10,
    node: process.version,
    kernel: release(),
    tempFileSystem: fileSystem,
    loadAverageAtStart: loadavg().map((l) => Math.round(l * 100) / 100),
  };
}
