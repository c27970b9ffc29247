/**
 * A workspace for the file tools, in a temp folder, with everything a hostile
 * path could aim at next to it: a sentinel folder holding a secret (which
 * must never be read, listed or changed), a sibling folder whose name starts
 * with the workspace's own (`workspace-evil`, against a prefix check), and,
 * inside the workspace, symbolic links leading out (to the sentinel folder, to
 * its secret file, dangling into it, to the sibling, to `/`, two levels up),
 * a link that stays inside, a link loop, a FIFO, a file larger than the
 * limit, a file that is not UTF-8, and ordinary files and folders.
 *
 * `outsideViolations()` compares everything outside the workspace with its
 * first snapshot (names, kinds, sizes, contents, link targets) and looks for
 * the canary name in the temp folder and `/`: any difference is a write that
 * escaped.
 */
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A name the fuzzer puts in paths, so that a file created anywhere it should not be is easy to find. */
export const CANARY = 'zz-fuzz-canary';

/** The entries of the workspace a path may name. */
export const WORKSPACE_NAMES = [
  'notes.txt',
  'sub',
  'sub/inside.txt',
  'big.txt',
  'latin1.txt',
  'dir',
  'pipe',
  'link-out-dir',
  'link-out-file',
  'link-dangling-out',
  'link-prefix',
  'link-root',
  'sub/link-up',
  'link-in',
  'link-loop',
] as const;

export interface WorkspaceFixture {
  /** The temp folder that holds everything. */
  readonly base: string;
  /** The workspace folder (real path). */
  readonly root: string;
  /** The folder next to the workspace that must stay untouched. */
  readonly sentinel: string;
  /** The secret text in the sentinel's file: never in a tool's result. */
  readonly secret: string;
  /** The names of the sentinel's entries: never in a `files.list` result. */
  readonly sentinelNames: readonly string[];
  readonly maxFileBytes: number;
  /** Whether a FIFO could be made (`mkfifo`). */
  readonly hasFifo: boolean;
  /** Everything outside the workspace that differs from the first snapshot (empty: nothing escaped). */
  outsideViolations(): string[];
  close(): void;
}

/** Makes the fixture. */
export function makeWorkspaceFixture(maxFileBytes: number): WorkspaceFixture {
  const base = mkdtempSync(join(tmpdir(), 'agent-ledger-fuzz-files-'));
  const root = join(base, 'workspace');
  const sentinel = join(base, 'sentinel');
  const sibling = join(base, 'workspace-evil');
  const secret = `SECRET-${randomBytes(12).toString('hex')}`;
  const sentinelNames = [`secret-${randomBytes(4).toString('hex')}.txt`, `hidden-${randomBytes(4).toString('hex')}`];
  mkdirSync(root);
  mkdirSync(sentinel);
  mkdirSync(sibling);
  writeFileSync(join(sentinel, sentinelNames[0] as string), secret);
  mkdirSync(join(sentinel, sentinelNames[1] as string));
  writeFileSync(join(sentinel, sentinelNames[1] as string, 'deeper.txt'), secret);
  writeFileSync(join(sibling, 'evil.txt'), secret);

  writeFileSync(join(root, 'notes.txt'), 'notes\n');
  mkdirSync(join(root, 'sub'));
  writeFileSync(join(root, 'sub', 'inside.txt'), 'inside\n');
  writeFileSync(join(root, 'big.txt'), 'b'.repeat(maxFileBytes + 1));
  writeFileSync(join(root, 'latin1.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0xff, 0xfe]));
  mkdirSync(join(root, 'dir'));
  symlinkSync(sentinel, join(root, 'link-out-dir'));
  symlinkSync(join(sentinel, sentinelNames[0] as string), join(root, 'link-out-file'));
  symlinkSync(join(sentinel, `${CANARY}-dangling.txt`), join(root, 'link-dangling-out'));
  symlinkSync(sibling, join(root, 'link-prefix'));
  symlinkSync('/', join(root, 'link-root'));
  symlinkSync('../..', join(root, 'sub', 'link-up'));
  symlinkSync('notes.txt', join(root, 'link-in'));
  symlinkSync('link-loop', join(root, 'link-loop'));
  let hasFifo = false;
  try {
    execFileSync('mkfifo', [join(root, 'pipe')]);
    hasFifo = true;
  } catch {
    // No mkfifo here: the FIFO case is skipped.
  }

  const snapshotOutside = (): Map<string, string> => {
    const entries = new Map<string, string>();
    const walk = (folder: string, shown: string) => {
      for (const name of readdirSync(folder).sort()) {
        const full = join(folder, name);
        const key = `${shown}/${name}`;
        if (full === root) continue;
        const found = lstatSync(full);
        if (found.isSymbolicLink()) entries.set(key, `link -> ${readlinkSync(full)}`);
        else if (found.isDirectory()) {
          entries.set(key, `folder ${(found.mode & 0o7777).toString(8)}`);
          walk(full, key);
        } else entries.set(key, `file ${found.size} ${(found.mode & 0o7777).toString(8)} ${createHash('sha256').update(readFileSync(full)).digest('hex')}`);
      }
    };
    walk(base, '');
    return entries;
  };
  const first = snapshotOutside();

  return {
    base,
    root,
    sentinel,
    secret,
    sentinelNames,
    maxFileBytes,
    hasFifo,
    outsideViolations() {
      const now = snapshotOutside();
      const broken: string[] = [];
      for (const [key, value] of now) if (first.get(key) !== value) broken.push(`${key}: ${first.get(key) ?? 'absent'} -> ${value}`);
      for (const key of first.keys()) if (!now.has(key)) broken.push(`${key} disappeared`);
      for (const folder of [tmpdir(), '/', join(base, '..'), sentinel]) {
        for (const name of safeReaddir(folder)) if (name.includes(CANARY)) broken.push(`${join(folder, name)} appeared`);
      }
      if (existsSync(join(sentinel, `${CANARY}-dangling.txt`))) broken.push('the dangling link created its target outside');
      return broken;
    },
    close() {
      // `rm -rf`: Node's recursive removal recurses in JavaScript, and the fuzz may leave folders 2000 levels deep.
      try {
        execFileSync('rm', ['-rf', base]);
      } catch {
        rmSync(base, { recursive: true, force: true });
      }
    },
  };
}

function safeReaddir(folder: string): string[] {
  try {
    return readdirSync(folder);
  } catch {
    return [];
  }
}
