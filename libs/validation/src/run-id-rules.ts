import { RUN_ID_PATTERN, RUN_ID_PROBLEM } from '@agent-ledger/domain';

/** A run id: the domain's {@link RUN_ID_PATTERN} (1 to 128 letters, digits, `.`, `_`, `:` or `-`, starting with a letter or digit). */
export const RUN_ID_RULE: RegExp = RUN_ID_PATTERN;

/** The message of a broken {@link RUN_ID_RULE} (`$property` is the field's name), worded as the domain's `assertRunId`. */
export const RUN_ID_RULE_MESSAGE = `$property ${RUN_ID_PROBLEM}`;

/**
 * An idempotency key: 1 to 255 printable ASCII characters, not starting with
 * a space. The one definition: the bus's `StartRun` and the HTTP API's
 * `POST /runs` check it.
 */
export const IDEMPOTENCY_KEY_RULE = /^[\x21-\x7e][\x20-\x7e]{0,254}$/;

/** The message of a broken {@link IDEMPOTENCY_KEY_RULE}. */
export const IDEMPOTENCY_KEY_RULE_MESSAGE = '$property must be 1 to 255 printable ASCII characters, not starting with a space';
