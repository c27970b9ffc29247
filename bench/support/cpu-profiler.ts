import { Session } from 'node:inspector/promises';
import type { CpuProfile } from './cpu-profile-format';

/** A V8 CPU profile of this process being taken. */
export interface RunningCpuProfile {
  /** Stops the profiler and returns the profile (its timestamps on `process.hrtime`'s clock, µs). */
  stop(): Promise<CpuProfile>;
}

/**
 * Starts V8's sampling profiler in this process through the inspector
 * (`Profiler.start`), as docs/benchmarks.md's profiling section describes.
 * Sampling every `intervalUs` µs (V8's default is 1,000).
 */
export async function startCpuProfile(intervalUs = 500): Promise<RunningCpuProfile> {
  const session = new Session();
  session.connect();
  try {
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: intervalUs });
    await session.post('Profiler.start');
  } catch (error) {
    session.disconnect();
    throw error;
  }
  return {
    stop: async () => {
      try {
        const { profile } = await session.post('Profiler.stop');
        return profile as unknown as CpuProfile;
      } finally {
        session.disconnect();
      }
    },
  };
}
