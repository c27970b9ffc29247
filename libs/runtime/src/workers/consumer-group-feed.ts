import { Logger } from '@nestjs/common';
import { InvalidFieldError, RUN_STATUS_ENTERED_BY } from '@agent-ledger/domain';
import type { ConsumerGroupMembership, ConsumerGroups, EventStore, OfferedEvent } from '@agent-ledger/event-store';
import { abortableDelay, isConsumerGroupName } from '@agent-ledger/event-store';
import type { RuntimeMetrics } from '../metrics/runtime-metrics';
import type { RunOffers } from './run-offers';
import type { ConsumerGroupOptions, ResolvedConsumerGroupOptions } from './runtime-options';
import { CONSUMER_GROUP_LIMITS, DEFAULT_CONSUMER_GROUP } from './runtime-options';

/** The run events after which a run is queued again: the group offers these, and only these. */
export const OFFERED_EVENT_TYPES: readonly string[] = Object.entries(RUN_STATUS_ENTERED_BY)
  .filter(([, status]) => status === 'QUEUED')
  .map(([type]) => type);

/** The first wait before joining again after the membership failed; it doubles up to 5 s. */
const REJOIN_DELAY_MS = 100;
const MAX_REJOIN_DELAY_MS = 5_000;

/**
 * The consumer group's options with their defaults.
 * @throws InvalidFieldError naming the option
 */
export function resolveConsumerGroupOptions(options: ConsumerGroupOptions = {}): ResolvedConsumerGroupOptions {
  const integer = (field: keyof typeof CONSUMER_GROUP_LIMITS): number => {
    const value: unknown = options[field] ?? DEFAULT_CONSUMER_GROUP[field];
    const { min, max } = CONSUMER_GROUP_LIMITS[field];
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
      throw new InvalidFieldError(`workers.consumerGroup.${field}`, `expected an integer from ${min} to ${max}, got ${String(value)}`);
    }
    return value;
  };
  const name = options.name ?? DEFAULT_CONSUMER_GROUP.name;
  if (!isConsumerGroupName(name)) {
    throw new InvalidFieldError('workers.consumerGroup.name', `expected 1 to 100 letters, digits, ".", "_" or "-", starting with a letter or digit, got ${JSON.stringify(name)}`);
  }
  return {
    name,
    messageTimeoutMs: integer('messageTimeoutMs'),
    maxRetryCount: integer('maxRetryCount'),
    sweepAfterMs: integer('sweepAfterMs'),
  };
}

/**
 * This process's membership of the workers' consumer group: it ensures the
 * group at start (created if missing, its settings checked if present), then
 * reads the runs the store offers to this process into its {@link RunOffers},
 * never more than `concurrency` waiting, so that the store hands what this
 * process cannot take now to the other processes. When the membership fails
 * (the store restarts), it logs, counts `consumerGroupFailures`, and after a
 * back-off ensures the group again and joins it; the offers it had not
 * settled go to a member.
 */
export class ConsumerGroupFeed {
  private readonly logger = new Logger('ConsumerGroupFeed');
  private membership: ConsumerGroupMembership | null = null;
  private loop: Promise<void> | null = null;
  private stopping = new AbortController();

  constructor(
    private readonly store: EventStore & ConsumerGroups,
    readonly options: ResolvedConsumerGroupOptions,
    private readonly offers: RunOffers,
    private readonly concurrency: number,
    private readonly metrics: RuntimeMetrics,
  ) {}

  /**
   * Creates the group or checks its settings.
   * @throws ConsumerGroupMismatchError when it exists with other settings; the store's error when it is down
   */
  async ensure(): Promise<void> {
    const { name, messageTimeoutMs, maxRetryCount } = this.options;
    const found = await this.store.ensureConsumerGroup(name, { eventTypes: OFFERED_EVENT_TYPES, messageTimeoutMs, maxRetryCount });
    this.logger.log(`Consumer group "${name}" ${found === 'created' ? 'created' : 'found'}: runnable runs are offered to one worker process each`);
  }

  /** Joins the group and reads offers until {@link stop} (again after a stop). */
  start(): void {
    if (this.loop !== null) return;
    if (this.stopping.signal.aborted) this.stopping = new AbortController();
    this.loop = this.follow();
  }

  /** Leaves the group; the offers not taken yet are offered again to another member. */
  async stop(): Promise<void> {
    this.stopping.abort();
    // Handed back while the membership is open; one that arrives meanwhile goes back with the membership's close.
    for (const offer of this.offers.drain()) await offer.settle?.('retry');
    await this.membership?.close();
    await this.loop;
    this.loop = null;
    this.offers.drain();
  }

  private async follow(): Promise<void> {
    let delayMs = REJOIN_DELAY_MS;
    let failed = false;
    while (!this.stopping.signal.aborted) {
      try {
        // After a failure the store may have restarted without the group (or someone deleted it): ensure it again.
        if (failed) await this.ensure();
        failed = false;
        this.membership = this.store.joinConsumerGroup(this.options.name, { bufferSize: Math.max(1, this.concurrency) });
        for await (const offered of this.membership) {
          delayMs = REJOIN_DELAY_MS;
          await this.receive(offered);
          while (this.offers.pending >= this.concurrency && !this.stopping.signal.aborted) await this.offers.taken.wait(100);
        }
      } catch (error) {
        if (this.stopping.signal.aborted) break;
        failed = true;
        this.metrics.increment('consumerGroupFailures');
        this.logger.error(`Consumer group "${this.options.name}" failed; joining again in ${delayMs} ms: ${error instanceof Error ? error.message : String(error)}`);
      }
      await this.membership?.close();
      this.membership = null;
      await abortableDelay(delayMs, this.stopping.signal);
      delayMs = Math.min(MAX_REJOIN_DELAY_MS, delayMs * 2);
    }
  }

  private async receive(offered: OfferedEvent): Promise<void> {
    const runId = offered.event.data.runId;
    if (typeof runId !== 'string') {
      this.logger.error(`Consumer group "${this.options.name}" offered ${offered.event.type} ${offered.event.id} of ${offered.event.streamName} without a runId: acknowledged, ignored`);
      await this.settle(offered, 'ack');
      return;
    }
    if (offered.event.type === 'RunRequested' && offered.event.data.mode === 'interactive') {
      // Its caller claims it (or the reaper fails it when the caller died): no worker may.
      await this.settle(offered, 'ack');
      return;
    }
    this.metrics.increment('runOffers');
    this.offers.add({ runId, settle: (settlement) => this.settle(offered, settlement) });
  }

  /** Settles an offer; a failure is logged and counted (the store then offers the run again: harmless, the claim decides). */
  private async settle(offered: OfferedEvent, settlement: 'ack' | 'retry'): Promise<void> {
    try {
      await (settlement === 'ack' ? offered.ack() : offered.nack('retry', 'not claimed: the store failed'));
    } catch (error) {
      this.metrics.increment('consumerGroupFailures');
      this.logger.warn(`Could not ${settlement} the offer of ${offered.event.type} ${offered.event.id}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}
