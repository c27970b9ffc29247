/** Injection token of the service's agents (`readonly AgentDefinition[]`), as `AppModule.forRoot` was given them. */
export const AGENT_DEFINITIONS = Symbol('agent-ledger:AgentDefinitions');
