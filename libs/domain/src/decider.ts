/**
 * A past-tense fact with a stable string `type` (equal to its name; never
 * derived from a class name) and a plain JSON payload.
 */
export interface DomainEvent<Type extends string = string, Data extends object = object> {
  readonly type: Type;
  readonly data: Data;
}

/** What every command carries besides its data: time arrives as data, never from a clock inside `decide`. */
export interface CommandMetadata {
  /** The time the command is decided at, in milliseconds since the Unix epoch. */
  readonly now: number;
}

/** An imperative request with a stable string `type`. */
export interface DomainCommand<Type extends string = string, Data extends object = object> {
  readonly type: Type;
  readonly data: Data;
  readonly metadata: CommandMetadata;
}

/**
 * A pure decider: `decide` turns a command and the current state into an
 * outcome (for example events to append), `evolve` folds an event into the
 * state and never throws, `initialState` is the state of an empty stream.
 */
export interface Decider<Command, State, Event, Outcome> {
  decide(command: Command, state: State): Outcome;
  evolve(state: State, event: Event): State;
  initialState(): State;
}

/** The state after `events`, folded from `decider.initialState()`. */
export function foldEvents<State, Event>(
  decider: Pick<Decider<unknown, State, Event, unknown>, 'evolve' | 'initialState'>,
  events: Iterable<Event>,
): State {
  let state = decider.initialState();
  for (const event of events) {
    state = decider.evolve(state, event);
  }
  return state;
}
