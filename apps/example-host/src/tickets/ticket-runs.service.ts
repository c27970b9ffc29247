import { Injectable } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import type { Principal } from '@agent-ledger/domain';
import type { InteractiveStartResult, RunStateAnswer } from '@agent-ledger/runtime';
import { GetRunState, StartRun } from '@agent-ledger/runtime';
import { TICKET_CLOSER } from '../ticket-agents';

/** Who the runs this service starts are recorded as started by: the host's own caller, as the host names it. */
export const TICKET_SERVICE: Principal = { kind: 'bus', id: 'ticket-service' };

/**
 * The host's use of the runtime: it sends the product's commands and queries
 * through its own buses. Nothing here knows a store, a worker or a lease.
 */
@Injectable()
export class TicketRuns {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  /**
   * Runs the ticket closer on a ticket, here and now, started by this service
   * ({@link TICKET_SERVICE}, recorded as who started the run). The idempotency key makes
   * it safe to repeat: a second call answers the first run (`replayed: true`)
   * and closes nothing more.
   */
  async closeTicket(ticketId: string): Promise<InteractiveStartResult> {
    const result = await this.commands.execute(new StartRun({ agent: TICKET_CLOSER, input: { ticketId }, mode: 'interactive', idempotencyKey: `close-ticket:${ticketId}`, principal: TICKET_SERVICE }));
    if (result.mode !== 'interactive') throw new Error(`Expected an interactive result, got ${result.mode}`);
    return result;
  }

  /** The run as its stream tells it now. */
  run(runId: string): Promise<RunStateAnswer> {
    return this.queries.execute(new GetRunState({ runId }));
  }
}
