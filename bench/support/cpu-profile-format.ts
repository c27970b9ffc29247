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
