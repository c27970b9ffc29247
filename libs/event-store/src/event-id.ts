import { createHash } from 'node:crypto';

/** The namespace of agent-ledger's name-based event ids (a fixed, random UUID). */
const AGENT_LEDGER_NAMESPACE = Buffer.from('6f1d0c52a3b94e0c9d27f4a1c8e3b5d7', 'hex');

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
  const hash = createHash('sha1').update(AGENT_LEDGER_NAMESPACE).update(name, 'utf8').digest();
  const bytes = hash.subarray(0, 16);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x50;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
