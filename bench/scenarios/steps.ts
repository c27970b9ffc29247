import type { BenchScenario } from '../support/bench-scenario';

/** Step throughput: the product against raw better-sqlite3. */
export const stepsScenario: BenchScenario = {
  name: 'steps',
  title: "Step throughput: the product against raw better-sqlite3",
  run: async () => {
    throw new Error('not built yet');
  },
};
