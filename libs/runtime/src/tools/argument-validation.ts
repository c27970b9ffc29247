import type { JsonObject } from '@agent-ledger/domain';

/**
 * The outcome of checking a tool call's arguments against the tool's schema.
 * A failure is an error result for the model (it can correct its call), never
 * an exception: bad arguments do not fail the run.
 */
export type ArgumentValidation =
  | { readonly ok: true; readonly args: JsonObject }
  | {
      readonly ok: false;
      /** One sentence per problem, naming the field, e.g. `arguments.path must be string`. */
      readonly errors: readonly string[];
    };
