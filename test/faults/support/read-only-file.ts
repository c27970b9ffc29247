import { execFileSync } from 'node:child_process';
import { chmodSync, closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A way to make a file read-only that holds against this process. */
export interface ReadOnlyMechanism {
  /** What it does, for test titles and the README (`chmod 0444`, `chattr +i`). */
  readonly name: string;
  protect(path: string): void;
  unprotect(path: string): void;
}

const chmod: ReadOnlyMechanism = {
  name: 'chmod 0444',
  protect: (path) => chmodSync(path, 0o444),
  unprotect: (path) => chmodSync(path, 0o644),
};

/**
 * The immutable attribute: the one file-level read-only that binds root too
 * (root ignores permission bits). Needs `chattr`, CAP_LINUX_IMMUTABLE and a
 * file system that supports it (ext4, xfs, btrfs; not tmpfs or overlayfs).
 */
const chattr: ReadOnlyMechanism = {
  name: 'chattr +i',
  protect: (path) => void execFileSync('chattr', ['+i', path], { stdio: 'pipe' }),
  unprotect: (path) => void execFileSync('chattr', ['-i', path], { stdio: 'pipe' }),
};

/**
 * Finds, once, how a file can be made read-only for this process: permission
 * bits for an ordinary user, the immutable attribute for root. Proves it on a
 * probe file in the temp folder (opening it for writing must fail).
 *
 * @returns the mechanism, or why there is none here.
 */
export function findReadOnlyMechanism(): { readonly mechanism: ReadOnlyMechanism | null; readonly reason: string } {
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const candidate = isRoot ? chattr : chmod;
  const dir = mkdtempSync(join(tmpdir(), 'agent-ledger-faults-ro-probe-'));
  const file = join(dir, 'probe');
  writeFileSync(file, 'x');
  try {
    try {
      candidate.protect(file);
    } catch (error) {
      return { mechanism: null, reason: `${candidate.name} failed: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}` };
    }
    try {
      closeSync(openSync(file, 'r+'));
      return { mechanism: null, reason: `${candidate.name} does not stop this process (uid ${process.getuid?.() ?? '?'}) from writing` };
    } catch {
      return { mechanism: candidate, reason: `${candidate.name} (uid ${process.getuid?.() ?? '?'})` };
    }
  } finally {
    try {
      candidate.unprotect(file);
    } catch {
      // not protected
    }
    rmSync(dir, { recursive: true, force: true });
  }
}
