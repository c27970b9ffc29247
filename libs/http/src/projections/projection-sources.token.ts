/** Injection token of the projections' sources (`ProjectionSource[]`), the same list `ProjectionsModule` was given. */
export const PROJECTION_SOURCES = Symbol('agent-ledger:ProjectionSources');
