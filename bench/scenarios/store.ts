import type { BenchScenario } from '../support/bench-scenario';

/** Store: the embedded store against Emmett's SQLite event store. */
export const storeScenario: BenchScenario = {
  name: 'store',
  title: "Store: the embedded store against Emmett's SQLite event store",
  run: async () => {
    throw new Error('not built yet');
  },
};
