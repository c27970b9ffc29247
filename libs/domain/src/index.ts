/**
 * The pure domain of agent-ledger: runs, steps, tool effects and failures.
 * Imports nothing from NestJS, the event store, rxjs or any adapter.
 */
export * from './json';
export * from './limits';
export * from './decider';
export * from './decision';
export * from './errors/agent-ledger-error';
export * from './errors/attempts-failed.error';
export * from './errors/audit-persistence-failed.error';
export * from './errors/audit-statement-conflict.error';
export * from './errors/circuit-open.error';
export * from './errors/configuration.error';
export * from './errors/invalid-field.error';
export * from './errors/run-rule-violations';
export * from './errors/unsupported-event-schema.error';
export * from './tool-effect/tool-effect';
export * from './tool-effect/tool-effect-declaration';
export * from './tool-effect/tool-effect-resolver';
export * from './failure/failure-class';
export * from './failure/failure-classifier';
export * from './run/run-status';
export * from './run/run-status-machine';
export * from './run/termination-reason';
export * from './run/run-mode';
export * from './run/segment-owner';
export * from './run/step-id';
export * from './run/retry-backoff';
export * from './run/run-policy';
export * from './run/run-events';
export * from './run/run-commands';
export * from './run/run-state';
export * from './run/run-decision';
export * from './run/run-decider';
export * from './run/continuation';
export * from './audit/audit-events';
export * from './audit/audit-commands';
export * from './audit/step-audit-entry';
export * from './audit/audit-decider';
export * from './audit/decision-statement';
export * from './audit/audit-chain';
export * from './audit/audit-store-verdict';
export * from './audit/canonical-json';
export * from './principal/principal';
export * from './events/event-schemas';
export * from './events/event-codec';
export * from './streams';
