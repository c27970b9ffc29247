import { createHash } from 'node:crypto';
import type { JsonValue } from '@agent-ledger/domain';
import { AgentLedgerError } from '@agent-ledger/domain';

/**
 * The run id a client idempotency key stands for: `ik-` and the first 32 hex
 * digits (128 bits) of the key's SHA-256. Deterministic, and the same as the
 * HTTP API's, so a key used over HTTP and on the bus names one run.
 */
export function runIdForIdempotencyKey(key: string): string {
  return `ik-${createHash('sha256').update(key, 'utf8').digest('hex').slice(0, 32)}`;
}

/**
 * An idempotency key came back with a different request (another agent,
 * mode or input) than the one that created its run. Nothing was started.
 */
export class IdempotencyKeyReusedError extends AgentLedgerError {
  readonly code = 'IDEMPOTENCY_KEY_REUSED' as const;
  readonly failureClass = 'clientError' as const;

  constructor(
    /** The run the key already names. */
    readonly runId: string,
    /** The first field that differs: `agent`, `mode` or `input`. */
    readonly field: 'agent' | 'mode' | 'input',
  ) {
    super(`The idempotency key was already used for run ${runId} with a different ${field}`);
  }
}

/** Deep equality of two JSON values, whatever the order of object keys. */
export function sameJson(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((value: JsonValue, index: number) => sameJson(value, (b as readonly JsonValue[])[index]));
  }
  const ra = a as Readonly<Record<string, JsonValue>>;
  const rb = b as Readonly<Record<string, JsonValue>>;
  const keys = Object.keys(ra).filter((k) => ra[k] !== undefined);
  if (keys.length !== Object.keys(rb).filter((k) => rb[k] !== undefined).length) return false;
  return keys.every((key) => Object.prototype.hasOwnProperty.call(rb, key) && sameJson(ra[key], rb[key]));
}
