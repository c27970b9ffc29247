/**
 * A run id: 1 to 128 letters, digits, `.`, `_`, `:` or `-`, starting with a
 * letter or digit (the domain's rule, and the HTTP API's).
 */
export const RUN_ID_RULE = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

/** The message of a broken {@link RUN_ID_RULE}, worded as the HTTP API's. */
export const RUN_ID_RULE_MESSAGE = '$property must be 1 to 128 letters, digits, ".", "_", ":" or "-", starting with a letter or digit';

/** An idempotency key: 1 to 255 printable ASCII characters, not starting with a space. */
export const IDEMPOTENCY_KEY_RULE = /^[\x21-\x7e][\x20-\x7e]{0,254}$/;

/** The message of a broken {@link IDEMPOTENCY_KEY_RULE}, worded as the HTTP API's. */
export const IDEMPOTENCY_KEY_RULE_MESSAGE = '$property must be 1 to 255 printable ASCII characters, not starting with a space';
