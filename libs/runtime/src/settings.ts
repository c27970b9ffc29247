/**
 * `@agent-ledger/runtime/settings`: the runtime's option bounds and defaults
 * that a configuration reader checks settings against, without Nest, the bus
 * or the engine: a tool that reads the service's settings but runs nothing
 * (the CLI's store verbs) loads this entry point only. The MCP server
 * bindings' validation is here too: the service's configuration file holds
 * bindings.
 */
export { CONSUMER_GROUP_LIMITS, DEFAULT_CONSUMER_GROUP } from './workers/runtime-options';
export type { ResolvedConsumerGroupOptions } from './workers/runtime-options';
export { MAX_WORKER_PROCESSES, resolveWorkerProcessCount, WORKER_PROCESS_ENV } from './workers/worker-processes-options';
export { usableCores } from './workers/usable-cores';
export type { ReadText } from './workers/usable-cores';
export { ConfigReader } from './agents/config-reader';
export type { ObjectReadOptions } from './agents/config-reader';
export { formatConfigIssue } from './agents/agents-config.error';
export type { ConfigIssue } from './agents/agents-config.error';
export { validateMcpServerBindings } from './mcp/mcp-bindings-validation';
export type { McpBindingsContext } from './mcp/mcp-bindings-validation';
export type { McpServerBinding } from './mcp/mcp-server-binding';
