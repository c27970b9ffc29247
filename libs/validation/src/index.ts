/**
 * The validation of the bus's commands and queries, shared by the runtime's
 * and the read models' messages: class-validator's rules checked before a
 * handler runs, with the HTTP API's field-level messages.
 */
export * from './is-omittable.decorator';
export * from './is-present.decorator';
export * from './json-value-rule';
export * from './message-validation.error';
export { validateMessage, validationIssuesOf, assignFields } from './validate-message';
export type { IssueNaming } from './validate-message';
export * from './validated-handlers';
export * from './run-id-rules';
export * from './principal-fields';
