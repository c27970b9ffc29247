import { ChangeSignal } from '../queue/change-signal';

/** How an offer is settled with the store that made it. */
export type OfferSettlement = 'ack' | 'retry';

/** A run offered to this process: by the consumer group (with its settle), or by a timer this process holds. */
export interface RunOffer {
  readonly runId: string;
  /** Tells the consumer group the offer is handled (`ack`) or must be offered again (`retry`); absent for a timer's offer. */
  readonly settle?: (settlement: OfferSettlement) => Promise<void>;
}

/**
 * The runs offered to this process's workers, in the order they came, and
 * the runs it was offered before they were due, with their due time: when a
 * run's back-off ends (by the runtime's clock, which the workers poll), the
 * process that was offered its `RunRequeued` offers it to its own workers (in
 * memory: if the process dies, another process's workers take the run once it
 * waited past their sweep delay).
 */
export class RunOffers {
  /** Notified when a worker takes an offer (room for the next one). */
  readonly taken = new ChangeSignal();
  private readonly queue: RunOffer[] = [];
  /** Due time of each run offered before it was due. */
  private readonly later = new Map<string, number>();

  constructor(private readonly changes: ChangeSignal) {}

  /** Offers waiting for a worker of this process. */
  get pending(): number {
    return this.queue.length;
  }

  /** Runs whose offer waits for their due time here. */
  get scheduled(): number {
    return this.later.size;
  }

  /** Adds an offer and wakes the workers. */
  add(offer: RunOffer): void {
    this.queue.push(offer);
    this.changes.notify();
  }

  /**
   * The oldest offer whose run `available` accepts (a run no worker here
   * holds), else the run put aside longest ago that is due at `now`; removed.
   */
  take(available: (runId: string) => boolean, now: number): RunOffer | undefined {
    const index = this.queue.findIndex((offer) => available(offer.runId));
    let offer: RunOffer | undefined;
    if (index >= 0) [offer] = this.queue.splice(index, 1);
    else {
      for (const [runId, at] of this.later) {
        if (at > now || !available(runId)) continue;
        this.later.delete(runId);
        offer = { runId };
        break;
      }
    }
    if (offer !== undefined) this.taken.notify();
    return offer;
  }

  /** Puts `runId` aside until `at` (once: a later call for the same run replaces the due time). */
  schedule(runId: string, at: number): void {
    this.later.delete(runId);
    this.later.set(runId, at);
  }

  /** Forgets a run put aside (it was claimed meanwhile). */
  cancel(runId: string): void {
    this.later.delete(runId);
  }

  /**
   * Forgets the runs put aside and empties the queue: the offers not taken
   * yet are returned, for their settle (`retry`: another process takes them).
   */
  drain(): RunOffer[] {
    this.later.clear();
    const left = this.queue.splice(0);
    this.taken.notify();
    return left;
  }
}
