/**
 * Reads a V8 CPU profile (`node --cpu-prof`) and tells where the time went:
 * self time by function and by source file, within a time window (the
 * measured work, not the child's start-up).
 */
import { readFileSync } from 'node:fs';
import type { CpuProfile, ProfileWindow } from '../../support/cpu-profile-format';
import { forEachSample } from '../../support/cpu-profile-format';
import { relative } from 'node:path';



/** A line of a profile summary. */
export interface SelfTime {
  /** `function (file:line)`, or a file, or V8's `(garbage collector)`, `(program)`, `(idle)`. */
  readonly name: string;
  readonly ms: number;
  /** Share of the window's sampled time, 0..1. */
  readonly share: number;
}

/** Self time by function and by file. */
export interface ProfileSummary {
  /** Sampled time in the window, ms. */
  readonly windowMs: number;
  /** Whether the window was found in the profile (else the whole profile is summarised). */
  readonly windowed: boolean;
  readonly functions: readonly SelfTime[];
  readonly files: readonly SelfTime[];
}

/**
 * A source file as a reader knows it: `node_modules/<package>/...` for a
 * dependency, else the repository path of the TypeScript source of a
 * precompiled file (`root` is the precompiled folder); `node:` URLs as they are.
 */
function displayFile(url: string, root: string): string {
  if (url === '') return '';
  const path = url.replace(/^file:\/\//, '');
  if (!path.startsWith('/')) return url;
  const dependency = path.lastIndexOf('/node_modules/');
  if (dependency !== -1) return path.slice(dependency + 1);
  return relative(root, path).replace(/\.js$/, '.ts');
}

/**
 * Summarises `path` between `fromUs` and `toUs` (the monotonic clock of
 * `process.hrtime`, which V8's profile timestamps share on Linux).
 */
export function summariseCpuProfile(path: string, window: ProfileWindow | null, root: string, top = 15): ProfileSummary {
  const profile = JSON.parse(readFileSync(path, 'utf8')) as CpuProfile;
  const functions = new Map<string, number>();
  const files = new Map<string, number>();
  const sum = (within: ProfileWindow | null) => {
    functions.clear();
    files.clear();
    let total = 0;
    forEachSample(profile, within, (node, delta) => {
      const frame = node.callFrame;
      const file = displayFile(frame.url, root);
      const name = frame.url === '' ? frame.functionName : `${frame.functionName || `(anonymous, line ${frame.lineNumber + 1})`} (${file})`;
      functions.set(name, (functions.get(name) ?? 0) + delta);
      const fileName = frame.url === '' ? frame.functionName : file;
      files.set(fileName, (files.get(fileName) ?? 0) + delta);
      total += delta;
    });
    return total;
  };
  let windowed = window !== null;
  let total = sum(window);
  if (total === 0) {
    windowed = false;
    total = sum(null);
  }
  const ranked = (m: Map<string, number>) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, us]) => ({ name, ms: us / 1000, share: total === 0 ? 0 : us / total }));
  return { windowMs: total / 1000, windowed, functions: ranked(functions), files: ranked(files) };
}
