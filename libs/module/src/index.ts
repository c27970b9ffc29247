/**
 * The composition of agent-ledger for a Nest application: the runtime
 * (`@agent-ledger/runtime`) and its read models (`@agent-ledger/projections`)
 * in one module, `AgentLedgerModule`.
 */
export * from './agent-ledger.module';
