import type { ServerErrorResponse } from '@grpc/grpc-js';

import type { EventLog } from './event-log';
import { checkpointStreamOf, parkedStreamOf, PersistentSubscriptionGroup } from './persistent-subscription-group';
import type { GroupConfig, GroupMember } from './persistent-subscription-group';
import type { GroupSettings, GroupSource } from './persistent-subscription-settings';
import { sourceName } from './persistent-subscription-settings';
import { persistentSubscriptionDoesNotExistError, persistentSubscriptionDroppedError } from './rpc-errors';

/** Outcome of joining a group. */
export type JoinOutcome =
  | { readonly kind: 'joined'; readonly group: PersistentSubscriptionGroup }
  | { readonly kind: 'not-found' }
  | { readonly kind: 'max-subscribers-reached' };

/**
 * The persistent subscription subsystem. Group definitions are data (like the real server's
 * `$persistentSubscriptionConfig` stream) and survive server restarts; the live groups belong
 * to one server incarnation: `start()` loads every group from its checkpoint stream, `stop()`
 * drops them. A clock tick (every `tickMs`, 1 s on the real server) checks message timeouts and
 * writes timed checkpoints.
 */
export class PersistentSubscriptions {
  private readonly configs = new Map<string, GroupConfig>();
  private readonly groups = new Map<string, PersistentSubscriptionGroup>();
  private timer: NodeJS.Timeout | undefined;
  private unsubscribeFromLog: (() => void) | undefined;

  constructor(
    private readonly log: EventLog,
    private readonly clock: () => number,
    private readonly tickMs: number,
  ) {}

  /** Loads every group from its checkpoint and starts the clock. */
  start(): void {
    if (this.timer !== undefined) return;
    for (const [key, config] of this.configs) this.groups.set(key, new PersistentSubscriptionGroup(this.log, config, this.clock));
    this.unsubscribeFromLog = this.log.onChange(() => {
      for (const group of [...this.groups.values()]) group.pump();
    });
    this.timer = setInterval(() => {
      for (const group of [...this.groups.values()]) group.tick();
    }, this.tickMs);
    this.timer.unref();
  }

  /** Drops the live groups (their members' calls are ended by the server stop) and the clock. */
  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.unsubscribeFromLog?.();
    this.unsubscribeFromLog = undefined;
    for (const group of this.groups.values()) group.discard();
    this.groups.clear();
  }

  /** `false` when a group of that name already exists on that source. */
  create(source: GroupSource, groupName: string, settings: GroupSettings): boolean {
    const key = keyOf(source, groupName);
    if (this.configs.has(key)) return false;
    const config: GroupConfig = { source, groupName, settings };
    this.configs.set(key, config);
    this.groups.set(key, new PersistentSubscriptionGroup(this.log, config, this.clock));
    return true;
  }

  /**
   * Replaces a group's settings: its members are dropped (`persistent-subscription-dropped`) and
   * the group starts again from its last checkpoint. `false` when it does not exist.
   */
  update(source: GroupSource, groupName: string, settings: GroupSettings): boolean {
    const key = keyOf(source, groupName);
    const existing = this.configs.get(key);
    if (existing === undefined) return false;
    const config: GroupConfig = { source: existing.source, groupName, settings };
    this.configs.set(key, config);
    this.groups.get(key)?.shutdown(droppedError);
    this.groups.set(key, new PersistentSubscriptionGroup(this.log, config, this.clock));
    return true;
  }

  /**
   * Deletes a group: its members get `persistent-subscription-does-not-exist`, its checkpoint
   * and parked streams are deleted (so a group created again under that name starts afresh).
   */
  delete(source: GroupSource, groupName: string): boolean {
    const key = keyOf(source, groupName);
    if (!this.configs.delete(key)) return false;
    this.groups.get(key)?.shutdown(notFoundError);
    this.groups.delete(key);
    for (const stream of [checkpointStreamOf(source, groupName), parkedStreamOf(source, groupName)]) {
      if (this.log.streamStatus(stream).lastRevision >= 0n) this.log.softDelete(stream, { kind: 'any' });
    }
    return true;
  }

  /** The live group, if it exists. */
  group(source: GroupSource, groupName: string): PersistentSubscriptionGroup | undefined {
    return this.groups.get(keyOf(source, groupName));
  }

  /** Live groups, all of them or those reading `source`. */
  list(source?: GroupSource): PersistentSubscriptionGroup[] {
    const groups = [...this.groups.values()];
    return source === undefined ? groups : groups.filter((group) => sourceName(group.config.source) === sourceName(source));
  }

  /** Adds a member to a group, unless the group is missing or full. */
  join(source: GroupSource, groupName: string, member: GroupMember): JoinOutcome {
    const group = this.group(source, groupName);
    if (group === undefined) return { kind: 'not-found' };
    if (group.hasReachedMaxSubscribers) return { kind: 'max-subscribers-reached' };
    group.join(member);
    return { kind: 'joined', group };
  }

  /** `RestartSubsystem`: every member is dropped, every group reloads from its checkpoint. */
  restartSubsystem(): void {
    for (const [key, group] of [...this.groups]) {
      group.shutdown(droppedError);
      this.groups.set(key, new PersistentSubscriptionGroup(this.log, group.config, this.clock));
    }
  }
}

function keyOf(source: GroupSource, groupName: string): string {
  return `${sourceName(source)}::${groupName}`;
}

function droppedError(group: PersistentSubscriptionGroup): ServerErrorResponse {
  return persistentSubscriptionDroppedError(sourceName(group.config.source), group.config.groupName);
}

function notFoundError(group: PersistentSubscriptionGroup): ServerErrorResponse {
  return persistentSubscriptionDoesNotExistError(sourceName(group.config.source), group.config.groupName);
}
