/** The parts of a V8 CPU profile (`node --cpu-prof`, `.cpuprofile` JSON) the bench reads. */

/** A node of the profile's call tree. */
export interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
  readonly children?: readonly number[];
}

/** A profile: its call tree, and which node was on top at each sample (with the time since the sample before). */
export interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly startTime: number;
  readonly endTime: number;
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

/** A span of a profile on `process.hrtime`'s clock (µs), which V8's profile timestamps share on Linux. */
export interface ProfileWindow {
  readonly fromUs: number;
  readonly toUs: number;
}

/**
 * Calls `visit` with each sample's node and the time it stands for (µs since
 * the sample before), for the samples within `window` (every sample when
 * null).
 * @throws when a sample names a node the profile does not list
 */
export function forEachSample(profile: CpuProfile, window: ProfileWindow | null, visit: (node: ProfileNode, deltaUs: number) => void): void {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  let t = profile.startTime;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    t += delta;
    if (window !== null && (t < window.fromUs || t > window.toUs)) return;
    const node = byId.get(id);
    if (node === undefined) throw new Error(`the profile samples node ${id}, which it does not list`);
    visit(node, delta);
  });
}
