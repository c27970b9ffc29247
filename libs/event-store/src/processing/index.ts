export * from './event-processor';
export * from './processor-database';
export * from './processor-runner';
export * from './processor-state-store';
export * from './processor-store-mismatch.error';
export * from './source-identity-table';
