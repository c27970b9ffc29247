/**
 * `@agent-ledger/projections/settings`: the choices a configuration reader
 * checks the read models' settings against (what to do with read models of
 * another store), without Nest or the projections themselves.
 */
export * from './identity/store-mismatch-policy';
