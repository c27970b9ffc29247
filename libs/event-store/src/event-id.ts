import { hash } from 'node:crypto';

/** The namespace of agent-ledger's name-based event ids (a fixed, random UUID). */
const AGENT_LEDGER_NAMESPACE = Buffer.from('6f1d0c52a3b94e0c9d27f4a1c8e3b5d7', 'hex');

/** The namespace, then the name's UTF-8 bytes: one buffer reused by every call (grown when a name needs it). */
let hashInput = namespacedBuffer(4096);

function namespacedBuffer(size: number): Buffer {
  const buffer = Buffer.allocUnsafe(size);
  AGENT_LEDGER_NAMESPACE.copy(buffer, 0);
  return buffer;
}

/** The variant's high bits (`10`) set on a hex digit. */
const VARIANT_DIGIT = '89ab89ab89ab89ab';

/**
 * A name-based UUID (version 5, RFC 9562) of `name` in agent-ledger's
 * namespace: the same name always gives the same id. Appending an event under
 * such an id twice at the same position is a no-op, so a retried append cannot
 * record a fact twice.
 *
 * Put into the name everything that makes the fact unique (stream, position,
 * type, payload): two different facts must never share an id, or the second
 * would be taken for a repeat of the first.
 */
export function deterministicEventId(name: string): string {
  const needed = AGENT_LEDGER_NAMESPACE.length + Buffer.byteLength(name, 'utf8');
  if (needed > hashInput.length) hashInput = namespacedBuffer(needed * 2);
  const written = hashInput.write(name, AGENT_LEDGER_NAMESPACE.length, 'utf8');
  // One-shot SHA-1 (no Hash object per id); version 5 in the 13th digit, the variant in the 17th.
  const hex = hash('sha1', hashInput.subarray(0, AGENT_LEDGER_NAMESPACE.length + written), 'hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${VARIANT_DIGIT[Number.parseInt(hex[16] ?? '0', 16)]}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
