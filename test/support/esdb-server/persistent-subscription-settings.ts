import type { UpdateReq } from '@eventstore/db-client/generated/persistent_pb';
import { CreateReq } from '@eventstore/db-client/generated/persistent_pb';

import type { EventFilter } from './event-filter';

/** The consumer strategies EventStoreDB ships, by the names its statistics report. */
export type ConsumerStrategyName = 'RoundRobin' | 'DispatchToSingle' | 'Pinned';

/** Where a group reads from: one stream, or `$all` with an optional server-side filter. */
export type GroupSource =
  | { readonly kind: 'stream'; readonly streamName: string }
  | { readonly kind: 'all'; readonly filter: EventFilter | undefined };

/**
 * Where a group starts when it has no checkpoint: inclusive, unlike a catch-up subscription.
 * For a stream a revision, for `$all` a commit position.
 */
export type GroupStart = 'start' | 'end' | bigint;

/** A group's settings, as `CreateReq.Settings` / `UpdateReq.Settings` carry them. */
export interface GroupSettings {
  readonly start: GroupStart;
  readonly resolveLinkTos: boolean;
  readonly extraStatistics: boolean;
  readonly messageTimeoutMs: number;
  readonly maxRetryCount: number;
  readonly checkPointAfterMs: number;
  readonly minCheckPointCount: number;
  readonly maxCheckPointCount: number;
  /** 0 means unbounded. */
  readonly maxSubscriberCount: number;
  readonly liveBufferSize: number;
  readonly readBatchSize: number;
  readonly historyBufferSize: number;
  readonly consumerStrategy: ConsumerStrategyName;
}

/** The largest UInt64: what the client sends as the deprecated `revision` for `END`. */
const UINT64_MAX = 18_446_744_073_709_551_615n;

const STRATEGY_BY_ENUM: Record<number, ConsumerStrategyName> = {
  [CreateReq.ConsumerStrategy.DISPATCHTOSINGLE]: 'DispatchToSingle',
  [CreateReq.ConsumerStrategy.ROUNDROBIN]: 'RoundRobin',
  [CreateReq.ConsumerStrategy.PINNED]: 'Pinned',
};

const KNOWN_STRATEGIES: readonly string[] = ['RoundRobin', 'DispatchToSingle', 'Pinned'];

/** Why a request's settings were refused (the server answers `persistent-subscription-failed`). */
export interface InvalidSettings {
  readonly invalid: string;
}

/**
 * Decodes the settings of a Create or Update request. The start point of a stream group comes
 * from `StreamOptions` when set, else from the deprecated `Settings.revision` that client 6.2.1
 * sends (`18446744073709551615` meaning `END`); a `$all` group's from `AllOptions`. The strategy
 * is the `consumer_strategy` string when set, else the `named_consumer_strategy` enum.
 *
 * Checks what the real server checks before creating a group: a known strategy, and
 * `readBatchSize` smaller than `historyBufferSize`.
 */
export function settingsFromProto(
  settings: CreateReq.Settings | UpdateReq.Settings | undefined,
  start: GroupStart,
): GroupSettings | InvalidSettings {
  if (settings === undefined) return { invalid: 'settings are required' };
  const named = settings instanceof CreateReq.Settings ? settings.getConsumerStrategy() : '';
  const consumerStrategy = named !== '' ? named : STRATEGY_BY_ENUM[settings.getNamedConsumerStrategy()];
  if (consumerStrategy === undefined || !KNOWN_STRATEGIES.includes(consumerStrategy)) {
    return { invalid: `Unknown consumer strategy '${String(consumerStrategy)}'` };
  }
  const readBatchSize = settings.getReadBatchSize();
  const historyBufferSize = settings.getHistoryBufferSize();
  if (readBatchSize >= historyBufferSize) {
    return { invalid: 'ReadBatchSize may not be greater than or equal to BufferSize' };
  }
  const messageTimeoutMs = settings.hasMessageTimeoutMs() ? settings.getMessageTimeoutMs() : ticksToMs(settings.getMessageTimeoutTicks());
  const checkPointAfterMs = settings.hasCheckpointAfterMs()
    ? settings.getCheckpointAfterMs()
    : ticksToMs(settings.getCheckpointAfterTicks());
  return {
    start,
    resolveLinkTos: settings.getResolveLinks(),
    extraStatistics: settings.getExtraStatistics(),
    messageTimeoutMs,
    maxRetryCount: settings.getMaxRetryCount(),
    checkPointAfterMs,
    minCheckPointCount: settings.getMinCheckpointCount(),
    maxCheckPointCount: settings.getMaxCheckpointCount(),
    maxSubscriberCount: settings.getMaxSubscriberCount(),
    liveBufferSize: settings.getLiveBufferSize(),
    readBatchSize,
    historyBufferSize,
    consumerStrategy: consumerStrategy as ConsumerStrategyName,
  };
}

/** Type guard separating decoded settings from a refusal. */
export function isInvalidSettings(settings: GroupSettings | InvalidSettings): settings is InvalidSettings {
  return 'invalid' in settings;
}

/** The start point of a stream group, from `StreamOptions` or the deprecated `Settings.revision`. */
export function streamStart(
  options: CreateReq.StreamOptions | UpdateReq.StreamOptions | undefined,
  settings: CreateReq.Settings | UpdateReq.Settings | undefined,
): GroupStart {
  if (options !== undefined) {
    if (options.hasStart()) return 'start';
    if (options.hasEnd()) return 'end';
    return BigInt(options.getRevision());
  }
  const revision = BigInt(settings?.getRevision() ?? '0');
  if (revision === UINT64_MAX) return 'end';
  return revision === 0n ? 'start' : revision;
}

/** The start point of a `$all` group. */
export function allStart(options: CreateReq.AllOptions | UpdateReq.AllOptions | undefined): GroupStart {
  const position = options?.getPosition();
  if (position !== undefined) return BigInt(position.getCommitPosition());
  return options?.hasEnd() === true ? 'end' : 'start';
}

/** `startFrom` as `SubscriptionInfo` reports it: `0`/`-1`/revision, or `C:x/P:y` for `$all`. */
export function formatStart(source: GroupSource, start: GroupStart): string {
  if (source.kind === 'stream') return start === 'start' ? '0' : start === 'end' ? '-1' : start.toString(10);
  if (start === 'start') return 'C:0/P:0';
  if (start === 'end') return 'C:-1/P:-1';
  return formatAllPosition(start);
}

/** A `$all` position as the server prints it (checkpoints, statistics). */
export function formatAllPosition(position: bigint): string {
  return `C:${position.toString(10)}/P:${position.toString(10)}`;
}

/** The group's event source name: the stream, or `$all`. */
export function sourceName(source: GroupSource): string {
  return source.kind === 'stream' ? source.streamName : '$all';
}

function ticksToMs(ticks: string): number {
  return Number(BigInt(ticks || '0') / 10_000n);
}
