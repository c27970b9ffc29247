/** Injection token of the service's {@link ServiceConfig}. */
export const SERVICE_CONFIG = Symbol('agent-ledger:ServiceConfig');
