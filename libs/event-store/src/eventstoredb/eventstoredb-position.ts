import type { Position as ClientPosition } from '@eventstore/db-client';
import type { Position } from '../port/position';
import { positionFromParts, positionToParts } from '../port/position';

/**
 * The port's opaque {@link Position} from EventStoreDB's `{commit, prepare}`
 * pair. The port fixes the token format for every store (`"<commit>:<prepare>"`,
 * see `port/position.ts`), so an EventStoreDB position reads like an embedded
 * one: positions of different stores are not comparable, and nothing in the
 * token says which store issued it.
 */
export function fromClientPosition(position: ClientPosition): Position {
  return positionFromParts({ commit: position.commit, prepare: position.prepare });
}

/** EventStoreDB's `{commit, prepare}` pair behind a port {@link Position}. */
export function toClientPosition(position: Position): ClientPosition {
  const { commit, prepare } = positionToParts(position);
  return { commit, prepare };
}
