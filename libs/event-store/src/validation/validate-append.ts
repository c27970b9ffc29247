import type { EventData } from '../port/event';
import type { ExpectedRevision } from '../port/expected-revision';
import type { StreamAppend } from '../port/multi-stream-append';
import { ExpectedRevision as Expected } from '../port/expected-revision';
import { EventTooLargeError } from '../port/errors/event-too-large.error';
import { InvalidEventError, InvalidEventField } from '../port/errors/invalid-event.error';
import { InvalidOptionError } from '../port/errors/invalid-option.error';
import { assertValidStreamName } from '../stream-name';
import { findJsonProblem, isPlainObject } from './json-check';
import { MAX_APPEND_SIZE, MAX_EVENT_TYPE_LENGTH } from './limits';
import type { PreparedEvent } from './prepared-event';
import { takeSerialisedData } from './serialised-data';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** Whether `value` is a UUID (8-4-4-4-12 hex digits, any version, any case). */
export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}

/**
 * Checks an expected revision: one of the constants or a `bigint` >= 0.
 * @throws InvalidOptionError otherwise (a `number` is rejected: revisions are `bigint`).
 */
export function assertExpectedRevision(value: unknown, option = 'expectedRevision'): ExpectedRevision {
  if (value === Expected.ANY || value === Expected.NO_STREAM || value === Expected.STREAM_EXISTS) return value;
  if (typeof value === 'bigint' && value >= 0n) return value;
  throw new InvalidOptionError(
    option,
    typeof value === 'number'
      ? 'revisions are bigint (write 5n, not 5)'
      : `expected 'any', 'no_stream', 'stream_exists' or a bigint >= 0, got ${typeof value === 'bigint' ? `${value}n` : JSON.stringify(value) ?? String(value)}`,
  );
}

function prepareEvent(event: unknown, index: number): PreparedEvent {
  if (!isPlainObject(event)) throw new InvalidEventError(InvalidEventField.EVENT, index, 'an event must be an object');
  const { id, type, data, metadata } = event;
  if (!isUuid(id)) throw new InvalidEventError(InvalidEventField.ID, index, `id must be a UUID, got ${JSON.stringify(id) ?? String(id)}`);
  if (typeof type !== 'string' || type.length === 0) {
    throw new InvalidEventError(InvalidEventField.TYPE, index, 'type must be a non-empty string');
  }
  if (type.startsWith('$')) throw new InvalidEventError(InvalidEventField.TYPE, index, 'types starting with "$" are reserved');
  if (type.length > MAX_EVENT_TYPE_LENGTH) {
    throw new InvalidEventError(InvalidEventField.TYPE, index, `type is longer than ${MAX_EVENT_TYPE_LENGTH} characters`);
  }
  if (CONTROL.test(type)) throw new InvalidEventError(InvalidEventField.TYPE, index, 'type contains control characters');

  // A payload serialiseEventData checked and serialised just before: stored as it gave it, not checked twice.
  let dataJson = typeof data === 'object' && data !== null ? takeSerialisedData(data) : undefined;
  if (dataJson === undefined) {
    if (!isPlainObject(data)) {
      throw new InvalidEventError(InvalidEventField.DATA, index, `data must be a plain JSON object, got ${describe(data)}`);
    }
    const dataProblem = findJsonProblem(data, 'data');
    if (dataProblem !== undefined) throw new InvalidEventError(InvalidEventField.DATA, index, dataProblem);
    dataJson = JSON.stringify(data);
  }

  if (metadata !== undefined) {
    if (!isPlainObject(metadata)) {
      throw new InvalidEventError(InvalidEventField.METADATA, index, `metadata must be a plain JSON object, got ${describe(metadata)}`);
    }
    const metaProblem = findJsonProblem(metadata, 'metadata');
    if (metaProblem !== undefined) throw new InvalidEventError(InvalidEventField.METADATA, index, metaProblem);
    for (const key of ['$correlationId', '$causationId'] as const) {
      const v = metadata[key];
      if (v !== undefined && (typeof v !== 'string' || v.length === 0)) {
        throw new InvalidEventError(InvalidEventField.METADATA, index, `metadata.${key} must be a non-empty string`);
      }
    }
    const sv = metadata['schemaVersion'];
    if (sv !== undefined && !(typeof sv === 'number' && Number.isSafeInteger(sv) && sv >= 1)) {
      throw new InvalidEventError(InvalidEventField.METADATA, index, 'metadata.schemaVersion must be an integer >= 1');
    }
  }

  const metadataJson = JSON.stringify(metadata ?? {});
  const size = Buffer.byteLength(type, 'utf8') + Buffer.byteLength(dataJson, 'utf8') + Buffer.byteLength(metadataJson, 'utf8');
  if (size > MAX_APPEND_SIZE) throw new EventTooLargeError(size, MAX_APPEND_SIZE, index);
  return { id: id.toLowerCase(), type, dataJson, metadataJson, size };
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return `an instance of ${(value as { constructor?: { name?: string } }).constructor?.name ?? 'unknown'}`;
  return `a ${typeof value}`;
}

/** A checked append, ready for an adapter. */
export interface PreparedAppend {
  /** The stream name, checked. */
  readonly streamName: string;
  /** The events, checked and serialised. */
  readonly events: readonly PreparedEvent[];
  /** The expected revision, checked. */
  readonly expectedRevision: ExpectedRevision;
}

/**
 * Checks everything about an append before anything is written, and
 * serialises its events once. Every adapter calls it first, so every adapter
 * rejects the same inputs with the same errors.
 *
 * @throws InvalidStreamNameError, InvalidEventError, EventTooLargeError, InvalidOptionError
 */
export function prepareAppend(streamName: string, events: readonly EventData[], options: { readonly expectedRevision: ExpectedRevision }): PreparedAppend {
  assertValidStreamName(streamName);
  if (!Array.isArray(events)) throw new InvalidEventError(InvalidEventField.EVENTS, undefined, 'events must be an array');
  if (events.length === 0) throw new InvalidEventError(InvalidEventField.EVENTS, undefined, 'an append needs at least one event');
  if (typeof options !== 'object' || options === null) {
    throw new InvalidOptionError('options', 'append needs { expectedRevision }');
  }
  const expectedRevision = assertExpectedRevision(options.expectedRevision);
  const prepared = events.map((event, index) => prepareEvent(event, index));
  const total = prepared.reduce((sum, e) => sum + e.size, 0);
  if (total > MAX_APPEND_SIZE) throw new EventTooLargeError(total, MAX_APPEND_SIZE, undefined);
  return { streamName, events: prepared, expectedRevision };
}

/**
 * Checks a multi-stream append's parts as {@link prepareAppend} checks one
 * append each, and that there is at least one and no stream twice.
 *
 * @throws InvalidOptionError (`appends`), and each part's errors of {@link prepareAppend}
 */
export function prepareStreamAppends(appends: readonly StreamAppend[]): PreparedAppend[] {
  if (!Array.isArray(appends) || appends.length === 0) throw new InvalidOptionError('appends', 'appendToStreams needs at least one { streamName, events, expectedRevision }');
  const streams = new Set<string>();
  return appends.map((part, index) => {
    if (typeof part !== 'object' || part === null) throw new InvalidOptionError(`appends[${index}]`, 'must be { streamName, events, expectedRevision }');
    const prepared = prepareAppend(part.streamName, part.events, { expectedRevision: part.expectedRevision });
    if (streams.has(prepared.streamName)) throw new InvalidOptionError(`appends[${index}].streamName`, `${prepared.streamName} is in two parts: give each stream's events in one part`);
    streams.add(prepared.streamName);
    return prepared;
  });
}
