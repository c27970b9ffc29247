import type { BenchScenario } from '../support/bench-scenario';

/** HTTP: runs started per second over the API. */
export const httpScenario: BenchScenario = {
  name: 'http',
  title: "HTTP: runs started per second over the API",
  run: async () => {
    throw new Error('not built yet');
  },
};
