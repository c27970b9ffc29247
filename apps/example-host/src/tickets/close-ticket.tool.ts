import type { DeclaresToolEffect, JsonObject, JsonValue } from '@agent-ledger/domain';
import { ToolEffect } from '@agent-ledger/domain';
import type { AgentTool, ToolContext } from '@agent-ledger/runtime';
import { throwIfToolAborted, Tool } from '@agent-ledger/runtime';
import { TicketDesk } from './ticket-desk';

/** The arguments of `tickets.close`, as checked against its schema. */
export interface CloseTicketArgs extends JsonObject {
  readonly ticketId: string;
  readonly note: string;
}

/**
 * `tickets.close`: posts a closing note on a ticket of the host's desk. A
 * plain provider of the host's `TicketsModule`: the runtime finds it by its
 * `@Tool` decorator, and reads its effect from `getEffect()`, in code.
 */
@Tool({
  name: 'tickets.close',
  description: 'Closes a ticket with a note.',
  parameters: {
    type: 'object',
    properties: { ticketId: { type: 'string', pattern: '^T-[0-9]+$' }, note: { type: 'string', minLength: 1 } },
    required: ['ticketId', 'note'],
    additionalProperties: false,
  },
  operationDeadlineSeconds: 30,
})
export class CloseTicketTool implements AgentTool<CloseTicketArgs>, DeclaresToolEffect {
  constructor(private readonly desk: TicketDesk) {}

  /** Each call posts one more note: never executed twice (the runtime's write fence). */
  getEffect(): ToolEffect {
    return ToolEffect.NON_IDEMPOTENT_WRITE;
  }

  async execute(args: CloseTicketArgs, context: ToolContext): Promise<JsonValue> {
    throwIfToolAborted(context.signal, 'tickets.close');
    const closing = this.desk.close(args.ticketId, args.note, context.idempotencyKey);
    return { ticketId: args.ticketId, closing };
  }
}
