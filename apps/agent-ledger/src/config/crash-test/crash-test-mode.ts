import type { CrashKillerDeps } from './crash-point-killer';
import { armCrashPoints } from './crash-point-killer';
import type { CrashTestConfig } from './crash-test-settings';
import { TEST_LEDGER_SETTING } from './crash-test-settings';

/** The test settings applied in this process. */
export interface CrashTestMode {
  /** The lines to log loudly at start-up (none when every test setting is off). */
  readonly banner: readonly string[];
  /** Removes the crash point handler (tests). */
  disarm(): void;
}

/**
 * Applies the test settings of a process that runs the runtime (`serve`,
 * `worker`): arms `AGENT_LEDGER_CRASH_POINTS` when set, and says loudly
 * which test settings are on.
 */
export function startCrashTestMode(config: CrashTestConfig, deps: CrashKillerDeps = {}): CrashTestMode {
  const banner: string[] = [];
  let disarm = () => undefined as void;
  if (config.crashPoints !== null) {
    const armed = armCrashPoints(config.crashPoints, deps);
    banner.push(...armed.banner);
    disarm = () => armed.disarm();
  }
  if (config.testLedgerPath !== null) {
    banner.push(`!!! TEST TOOLS (${TEST_LEDGER_SETTING}=${config.testLedgerPath}): ledger.read, ledger.put and ledger.append are registered and record each execution in that file. For crash tests only.`);
  }
  return { banner, disarm };
}
