import type { BenchScenario } from '../support/bench-scenario';

/** Rebuild: all projections from history against reading and parsing the same events. */
export const rebuildScenario: BenchScenario = {
  name: 'rebuild',
  title: "Rebuild: all projections from history against reading and parsing the same events",
  run: async () => {
    throw new Error('not built yet');
  },
};
