import type { BenchScenario } from '../support/bench-scenario';

/** Sustained load: memory over time. */
export const sustainedScenario: BenchScenario = {
  name: 'sustained',
  title: "Sustained load: memory over time",
  run: async () => {
    throw new Error('not built yet');
  },
};
