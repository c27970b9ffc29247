/** Injection token of the run decider (`createRunDecider(policy)` from the domain). */
export const RUN_DECIDER = Symbol('agent-ledger:RunDecider');
