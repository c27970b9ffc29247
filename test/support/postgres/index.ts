export * from './postgres-test-server';
