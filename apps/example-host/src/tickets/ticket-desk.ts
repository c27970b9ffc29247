import { Injectable } from '@nestjs/common';

/** One closing note posted on a ticket. */
export interface TicketClosing {
  readonly ticketId: string;
  readonly note: string;
  /** The key the runtime gave the call: stable across every retry of the same step. */
  readonly idempotencyKey: string;
}

/**
 * The host's own ticket system (in memory here; a real host would call its
 * ticket API). Each `close` posts one more closing note: calling it twice
 * posts two, which is why the tool that calls it declares `NON_IDEMPOTENT_WRITE`.
 */
@Injectable()
export class TicketDesk {
  private readonly posted: TicketClosing[] = [];

  close(ticketId: string, note: string, idempotencyKey: string): number {
    this.posted.push({ ticketId, note, idempotencyKey });
    return this.posted.length;
  }

  /** Every closing note posted so far, oldest first. */
  closings(): readonly TicketClosing[] {
    return [...this.posted];
  }
}
