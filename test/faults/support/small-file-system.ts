import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A small file system of its own (tmpfs), which a test can fill up and free again. */
export interface SmallFileSystem {
  /** Where it is mounted. */
  readonly dir: string;
  /** Fills every free byte with ballast files (64 KiB, then 512 B); returns the bytes written. */
  fill(): number;
  /** Deletes the ballast: space returns. */
  free(): void;
  /** Unmounts it (lazily, so an open file cannot keep it) and removes the mount point. */
  unmount(): void;
}

const BALLAST = 'ballast-';

/** Mounts a tmpfs of `sizeMiB` MiB on a fresh folder of the temp folder. Needs root with CAP_SYS_ADMIN. */
export function mountSmallFileSystem(sizeMiB: number): SmallFileSystem {
  const dir = mkdtempSync(join(tmpdir(), 'agent-ledger-faults-tmpfs-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeMiB}m`, 'tmpfs', dir], { stdio: 'pipe' });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    dir,
    fill() {
      let bytes = 0;
      let n = 0;
      for (const size of [64 * 1024, 512]) {
        try {
          for (;;) {
            writeFileSync(join(dir, `${BALLAST}${n++}`), Buffer.alloc(size));
            bytes += size;
          }
        } catch (error) {
          if ((error as { code?: unknown }).code !== 'ENOSPC') throw error;
        }
      }
      return bytes;
    },
    free() {
      for (const file of readdirSync(dir)) if (file.startsWith(BALLAST)) unlinkSync(join(dir, file));
    },
    unmount() {
      try {
        execFileSync('umount', ['-l', dir], { stdio: 'pipe' });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

/** Whether this process can mount a tmpfs (root with CAP_SYS_ADMIN, `mount` present), and why not. */
export function canMountSmallFileSystem(): { readonly available: boolean; readonly reason: string } {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return { available: false, reason: 'not root' };
  try {
    mountSmallFileSystem(1).unmount();
    return { available: true, reason: 'tmpfs mounted as root' };
  } catch (error) {
    return { available: false, reason: `mount -t tmpfs failed: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}` };
  }
}
