import type { Command, CommandResult, Query, QueryResult } from '@nestjs/cqrs';
import { validateMessage } from './validate-message';

/**
 * The base of the public command handlers: `execute` validates the command
 * with its class-validator rules ({@link validateMessage}) and only then
 * calls `handle`. A refused command rejects with `MessageValidationError`;
 * `handle` never runs, so nothing is appended.
 *
 * Why here and not in a `CommandBus` subclass or a publisher: `CqrsModule`
 * is global and shared with the host, whose bus must stay the one it knows,
 * and `@nestjs/cqrs` 11 has no interceptor. A publisher runs before the
 * handler but throws synchronously out of `execute` and replaces the
 * host's own publisher. A base class keeps the rule next to the handler,
 * typed by the command's result, and visible in each handler's declaration.
 */
export abstract class ValidatedCommandHandler<C extends Command<unknown>> {
  async execute(command: C): Promise<CommandResult<C>> {
    validateMessage(command);
    return this.handle(command);
  }

  /** Runs a command that passed validation. */
  protected abstract handle(command: C): Promise<CommandResult<C>>;
}

/** The base of the public query handlers: as {@link ValidatedCommandHandler}, for queries. */
export abstract class ValidatedQueryHandler<Q extends Query<unknown>> {
  async execute(query: Q): Promise<QueryResult<Q>> {
    validateMessage(query);
    return this.handle(query);
  }

  /** Answers a query that passed validation. */
  protected abstract handle(query: Q): Promise<QueryResult<Q>>;
}
