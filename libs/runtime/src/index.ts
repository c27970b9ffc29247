/** The agent-ledger runtime: tools, models, agents and the execution of runs. */
export * from './clock/clock';
export * from './tools/agent-tool';
export * from './tools/tool-metadata';
export * from './models/conversation';
export * from './models/model-provider';
export * from './agents/agent-definition';
