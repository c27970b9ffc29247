import type { RecordedEvent } from '../port/event';
import type { Position } from '../port/position';
import { positionToParts } from '../port/position';
import type { ReadAllOptions, ReadFrom } from '../port/read-options';
import { Direction } from '../port/read-options';
import { direction as checkDirection, eventFilter, fromPosition, positiveInteger } from '../validation/validate-options';
import { DEFAULT_BATCH_SIZE } from '../validation/limits';
import type { StoredEventRow } from './stored-event-row';
import { toRecordedEvent } from './stored-event-row';

/** The global sequence number behind a position of a sequence-based store. */
export function sequenceOf(position: Position): number {
  return Number(positionToParts(position).commit);
}

/**
 * Reads rows strictly after `cursor` in `direction` (forwards: position >
 * cursor ascending; backwards: position < cursor descending), at most `limit`.
 */
export type SequencePageReader = (
  cursor: number,
  direction: Direction,
  limit: number,
) => readonly StoredEventRow[] | Promise<readonly StoredEventRow[]>;

/**
 * `readAll` for stores whose positions are a global sequence (embedded,
 * in-memory, PostgreSQL): pulls pages of at most {@link DEFAULT_BATCH_SIZE} rows as the
 * caller iterates. Options are checked when iteration starts.
 */
export async function* readAllBySequence(
  readPage: SequencePageReader,
  options: ReadAllOptions | undefined,
  assertOpen: () => void,
): AsyncGenerator<RecordedEvent, void, undefined> {
  const direction = checkDirection(options?.direction);
  const from: Position | ReadFrom | undefined = fromPosition(options?.fromPosition);
  const maxCount = positiveInteger(options?.maxCount, 'maxCount', Number.MAX_SAFE_INTEGER);
  const filter = eventFilter(options?.filter);
  const forwards = direction === Direction.FORWARDS;

  let cursor: number;
  if (from === undefined) cursor = forwards ? 0 : Number.MAX_SAFE_INTEGER;
  else if (from === 'start') cursor = forwards ? 0 : 1;
  else if (from === 'end') cursor = forwards ? Number.MAX_SAFE_INTEGER : Number.MAX_SAFE_INTEGER;
  else cursor = forwards ? sequenceOf(from) - 1 : sequenceOf(from) + 1;
  if (forwards && from === 'end') return;

  let yielded = 0;
  for (;;) {
    assertOpen();
    const rows = await readPage(cursor, direction, DEFAULT_BATCH_SIZE);
    for (const row of rows) {
      cursor = row.position;
      if (filter && !filter.matches(row.stream_name, row.event_type)) continue;
      yield toRecordedEvent(row);
      if (++yielded >= maxCount) return;
    }
    if (rows.length < DEFAULT_BATCH_SIZE) return;
  }
}
