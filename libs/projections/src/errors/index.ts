export * from './projection-error';
export * from './unknown-projection.error';
export * from './invalid-query.error';
export * from './invalid-projection-option.error';
export * from './rebuild-in-progress.error';
export * from './rebuild-aborted.error';
export * from './projection-store-closed.error';
export * from './read-model-store-mismatch.error';
