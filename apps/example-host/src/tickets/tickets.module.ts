import { Module } from '@nestjs/common';
import { CloseTicketTool } from './close-ticket.tool';
import { TicketDesk } from './ticket-desk';
import { TicketRuns } from './ticket-runs.service';

/** The host's ticket feature: its desk, the tool agents use on it, and the service that starts runs. */
@Module({
  providers: [TicketDesk, CloseTicketTool, TicketRuns],
  exports: [TicketDesk, TicketRuns],
})
export class TicketsModule {}
