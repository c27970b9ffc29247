import type { BenchScenario } from '../support/bench-scenario';
import { auditVerdictScenario } from './audit-verdict';
import { cliScenario } from './cli';
import { cpuScenario } from './cpu';
import { esdbWorkersScenario } from './esdb-workers';
import { httpScenario } from './http';
import { PEERS_TARGET_RATIOS, peersScenario } from './peers';
import { rebuildScenario } from './rebuild';
import { sagaScenario } from './saga';
import { startupScenario } from './startup';
import { stepsScenario } from './steps';
import { storeScenario } from './store';
import { sustainedScenario } from './sustained';

/** Every scenario of `npm run bench`, in the order they run. */
export const SCENARIOS: readonly BenchScenario[] = [stepsScenario, cpuScenario, storeScenario, peersScenario, rebuildScenario, startupScenario, auditVerdictScenario, sagaScenario, httpScenario, cliScenario, sustainedScenario, esdbWorkersScenario];

/** Target ratios of issue 9 (and issue 27's against the peers), drawn on the chart (ratio name → minimum). */
export const TARGET_RATIOS: Readonly<Record<string, number>> = {
  'product/baseline steps/s (processCrash)': 0.4,
  'product/baseline steps/s (powerLoss)': 0.35,
  'product/peer appends/s': 1,
  'product/peer reads/s': 1,
  ...PEERS_TARGET_RATIOS,
};
