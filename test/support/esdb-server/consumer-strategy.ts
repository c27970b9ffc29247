import type { ConsumerStrategyName } from './persistent-subscription-settings';

/** What a group needs to know about a connected member to choose it. */
export interface StrategyMember {
  readonly id: string;
  /** Whether the member has a free slot (fewer in-flight messages than its buffer size). */
  hasCapacity(): boolean;
}

/** Outcome of offering a message, as EventStoreDB's `ConsumerPushResult`. */
export type PushChoice<M extends StrategyMember> =
  | { readonly kind: 'sent'; readonly member: M }
  | { readonly kind: 'skipped' }
  | { readonly kind: 'no-capacity' };

/** Chooses which member of a group receives a message. */
export interface ConsumerStrategy<M extends StrategyMember> {
  /** Picks a member for a message of stream `streamName` (the message's original stream). */
  choose(members: readonly M[], streamName: string): PushChoice<M>;
  /** Forgets a member that left. */
  removed(member: M): void;
}

/** Buckets of the `Pinned` strategy (EventStoreDB uses 1024). */
const PINNED_BUCKETS = 1_024;

/** Builds the strategy of a group. */
export function createConsumerStrategy<M extends StrategyMember>(name: ConsumerStrategyName): ConsumerStrategy<M> {
  switch (name) {
    case 'RoundRobin':
      return new RoundRobin<M>();
    case 'DispatchToSingle':
      return new DispatchToSingle<M>();
    case 'Pinned':
      return new Pinned<M>();
  }
}

/** Each message to the next member in turn that has a free slot. */
class RoundRobin<M extends StrategyMember> implements ConsumerStrategy<M> {
  private next = 0;

  choose(members: readonly M[]): PushChoice<M> {
    for (let tried = 0; tried < members.length; tried += 1) {
      const index = (this.next + tried) % members.length;
      const member = members[index];
      if (member?.hasCapacity() === true) {
        this.next = index + 1;
        return { kind: 'sent', member };
      }
    }
    return { kind: 'no-capacity' };
  }

  removed(): void {
    // The cursor is taken modulo the member count, so a departure needs no bookkeeping.
  }
}

/** Every message to the first member (in connection order) that has a free slot. */
class DispatchToSingle<M extends StrategyMember> implements ConsumerStrategy<M> {
  choose(members: readonly M[]): PushChoice<M> {
    const member = members.find((candidate) => candidate.hasCapacity());
    return member === undefined ? { kind: 'no-capacity' } : { kind: 'sent', member };
  }

  removed(): void {
    // Stateless.
  }
}

/**
 * The messages of one stream always to the same member while it stays connected: the stream
 * name hashes to one of 1024 buckets, each bucket is owned by one member (given to the member
 * owning the fewest when first used or when its owner left). A message whose owner has no
 * free slot is skipped (left for later), so the order within a stream is kept.
 */
class Pinned<M extends StrategyMember> implements ConsumerStrategy<M> {
  private readonly owners = new Map<number, M>();

  choose(members: readonly M[], streamName: string): PushChoice<M> {
    if (members.length === 0) return { kind: 'no-capacity' };
    const bucket = hash(streamName) % PINNED_BUCKETS;
    let owner = this.owners.get(bucket);
    if (owner === undefined || !members.includes(owner)) {
      owner = this.leastLoaded(members);
      this.owners.set(bucket, owner);
    }
    if (owner.hasCapacity()) return { kind: 'sent', member: owner };
    return members.some((member) => member.hasCapacity()) ? { kind: 'skipped' } : { kind: 'no-capacity' };
  }

  removed(member: M): void {
    for (const [bucket, owner] of this.owners) if (owner === member) this.owners.delete(bucket);
  }

  private leastLoaded(members: readonly M[]): M {
    const counts = new Map<M, number>(members.map((member) => [member, 0]));
    for (const owner of this.owners.values()) if (counts.has(owner)) counts.set(owner, (counts.get(owner) ?? 0) + 1);
    let best = members[0] as M;
    for (const member of members) if ((counts.get(member) ?? 0) < (counts.get(best) ?? 0)) best = member;
    return best;
  }
}

/** FNV-1a over the UTF-16 code units: stable, cheap, good enough to spread stream names. */
function hash(text: string): number {
  let value = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    value ^= text.charCodeAt(i);
    value = Math.imul(value, 0x01000193) >>> 0;
  }
  return value;
}
