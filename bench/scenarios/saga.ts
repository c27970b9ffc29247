import type { BenchScenario } from '../support/bench-scenario';

/** Saga latency: a missing audit's deadline to RunFailed. */
export const sagaScenario: BenchScenario = {
  name: 'saga',
  title: "Saga latency: a missing audit's deadline to RunFailed",
  run: async () => {
    throw new Error('not built yet');
  },
};
