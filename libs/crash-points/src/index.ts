/** Named crash points of the runtime, for crash and simulation tests; inert unless a test installs a handler. */
export * from './crash-point';
