import type { EventFilter } from '../port/event-filter';
import { InvalidOptionError } from '../port/errors/invalid-option.error';
import type { Position } from '../port/position';
import { parsePosition } from '../port/position';
import { Direction, ReadFrom } from '../port/read-options';
import type { ExpectedRevision } from '../port/expected-revision';
import { ExpectedRevision as Expected } from '../port/expected-revision';
import { assertExpectedRevision } from './validate-append';
import { assertValidStreamName } from '../stream-name';

/** Checks an optional positive integer option. */
export function positiveInteger(value: unknown, option: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    throw new InvalidOptionError(option, `expected a positive integer, got ${String(value)}`);
  }
  return value;
}

/** Checks a direction option. */
export function direction(value: unknown): Direction {
  if (value === undefined) return Direction.FORWARDS;
  if (value === Direction.FORWARDS || value === Direction.BACKWARDS) return value;
  throw new InvalidOptionError('direction', `expected 'forwards' or 'backwards', got ${String(value)}`);
}

/** Checks an optional revision (`bigint` >= 0) option. */
export function optionalRevision(value: unknown, option: string): bigint | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'bigint' && value >= 0n) return value;
  throw new InvalidOptionError(option, `expected a bigint >= 0, got ${typeof value === 'number' ? `the number ${value} (use a bigint)` : String(value)}`);
}

/** Checks a `fromRevision` option: a revision, `start` or `end`. */
export function fromRevision(value: unknown): bigint | ReadFrom | undefined {
  if (value === undefined || value === ReadFrom.START || value === ReadFrom.END) return value;
  return optionalRevision(value, 'fromRevision');
}

/** Checks a `fromPosition` option: a position, `start` or `end`. */
export function fromPosition(value: unknown): Position | ReadFrom | undefined {
  if (value === undefined || value === ReadFrom.START || value === ReadFrom.END) return value;
  if (typeof value !== 'string') throw new InvalidOptionError('fromPosition', 'expected a Position, start or end');
  return parsePosition(value);
}

/** Checks an optional position option (a subscription's `after`). */
export function optionalPosition(value: unknown, option: string): Position | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new InvalidOptionError(option, 'expected a Position');
  return parsePosition(value);
}

/** A checked filter: a predicate on stream name and type, and its original form. */
export interface CheckedFilter {
  readonly filter: EventFilter;
  readonly matches: (streamName: string, type: string) => boolean;
}

/** Checks an optional `$all` filter. */
export function eventFilter(value: unknown): CheckedFilter | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null) throw new InvalidOptionError('filter', 'expected an object');
  const { streamNamePrefixes, eventTypePrefixes } = value as { streamNamePrefixes?: unknown; eventTypePrefixes?: unknown };
  if ((streamNamePrefixes === undefined) === (eventTypePrefixes === undefined)) {
    throw new InvalidOptionError('filter', 'give exactly one of streamNamePrefixes or eventTypePrefixes');
  }
  const key = streamNamePrefixes !== undefined ? 'streamNamePrefixes' : 'eventTypePrefixes';
  const list = streamNamePrefixes ?? eventTypePrefixes;
  if (!Array.isArray(list) || list.length === 0 || !list.every((p) => typeof p === 'string' && p.length > 0)) {
    throw new InvalidOptionError(`filter.${key}`, 'expected a non-empty array of non-empty strings');
  }
  const prefixes = [...(list as string[])];
  const matches =
    key === 'streamNamePrefixes'
      ? (stream: string) => prefixes.some((p) => stream.startsWith(p))
      : (_stream: string, type: string) => prefixes.some((p) => type.startsWith(p));
  return { filter: value as EventFilter, matches };
}

/**
 * Checks a delete's stream name and options; returns its expected revision.
 * @throws InvalidStreamNameError, InvalidOptionError
 */
export function prepareDelete(streamName: string, options: { readonly expectedRevision?: ExpectedRevision }): ExpectedRevision {
  assertValidStreamName(streamName);
  return deleteExpectedRevision(options.expectedRevision);
}

/** Checks a delete's expected revision (default `any`). */
export function deleteExpectedRevision(value: unknown): ExpectedRevision {
  return value === undefined ? Expected.ANY : assertExpectedRevision(value);
}
