import { UUID } from '@eventstore/db-client/generated/shared_pb';

/** How a `Read` caller asked for event ids: `ReadReq.Options.UUIDOption` (`structured` or `string`). */
export type UuidFormat = 'structured' | 'string';

const HEX_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Reads an `event_store.client.UUID` as a canonical lower-case string.
 *
 * The proto allows two forms: `string` (what the Node client sends) and `structured`
 * (two signed int64 halves, most significant first, big-endian, as the .NET server writes).
 * Returns `undefined` when the message is missing or not a valid UUID.
 */
export function parseGrpcUuid(uuid: UUID | undefined): string | undefined {
  if (uuid === undefined) return undefined;
  if (uuid.hasStructured()) {
    const structured = uuid.getStructured();
    if (structured === undefined) return undefined;
    const bytes = Buffer.alloc(16);
    bytes.writeBigUInt64BE(BigInt.asUintN(64, BigInt(structured.getMostSignificantBits())), 0);
    bytes.writeBigUInt64BE(BigInt.asUintN(64, BigInt(structured.getLeastSignificantBits())), 8);
    const hex = bytes.toString('hex');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }
  const text = uuid.getString().trim().toLowerCase();
  return HEX_UUID.test(text) ? text : undefined;
}

/**
 * Writes a canonical UUID string in the form the caller asked for.
 * `structured` carries the big-endian halves as signed int64 decimal strings (the proto's
 * `jstype = JS_STRING`), exactly like EventStoreDB's `Uuid.ToDto()`.
 */
export function toGrpcUuid(id: string, format: UuidFormat): UUID {
  const uuid = new UUID();
  if (format === 'string') {
    uuid.setString(id);
    return uuid;
  }
  const bytes = Buffer.from(id.replace(/-/g, ''), 'hex');
  const structured = new UUID.Structured();
  structured.setMostSignificantBits(bytes.readBigInt64BE(0).toString(10));
  structured.setLeastSignificantBits(bytes.readBigInt64BE(8).toString(10));
  uuid.setStructured(structured);
  return uuid;
}
