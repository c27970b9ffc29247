/**
 * The read models of agent-ledger (run status, steps, audit review,
 * approvals), fed by checkpointed subscriptions of the event stores, stored
 * in their own SQLite file, rebuildable from the event history.
 */
export * from './errors';
export * from './core/projection-name';
export * from './core/projected-event';
export * from './core/table-spec';
export * from './core/row-store';
export { allTablesOf } from './core/projection-definition';
export type { ProjectionDefinition, StreamRevisionRow } from './core/projection-definition';
export * from './core/projections';
export * from './run-status/run-status-row';
export * from './run-status/run-status.projection';
export * from './steps/step-row';
export * from './steps/steps.projection';
export * from './audit-review/audit-review-rows';
export * from './audit-review/audit-review.projection';
export * from './approvals/approval-rows';
export * from './approvals/approvals.projection';
export type { Checkpoint } from './store/checkpoint';
export * from './store/projection-store-options';
export * from './store/projection-store';
export type { PendingBatchInput, RebuildBatch } from './store/pending-batch';
export { WrittenKeys } from './store/written-keys';
export { TableSlot, REBUILD_SUFFIX } from './store/sql-table';
export * from './runner/projection-source';
export * from './runner/processor-runner-host';
export * from './runner/projection-runner';

export * from './rebuild/rebuild-progress';
export * from './rebuild/rebuild-record';
export * from './rebuild/projection-rebuilder';
export * from './queries/run-list-query';
export * from './queries/audit-review-report';
export * from './queries/approval-list-query';
export * from './queries/projection-status';
export * from './queries/page-cursor';
export * from './queries/projection-queries';
export * from './identity/store-mismatch-policy';
export * from './identity/check-read-model-sources';
export * from './nest/projections-module-options';
export * from './nest/open-read-model-store';
export * from './nest/projection-runner-pool';
export * from './nest/projections.module';
export * from './bus/page-filter';
export * from './bus/run-list-filter';
export * from './bus/audit-review-filter';
export * from './bus/audit-review-answer';
export * from './bus/approval-list-filter';
export * from './bus/read-model-queries';
export { GetRunHandler, ListRunsHandler, GetRunStepsHandler, GetAuditReviewHandler, ListApprovalsHandler, GetProjectionStatusHandler } from './bus/read-model-query-handlers';
