import type { Position, RecordedEvent } from '@agent-ledger/event-store';
import { comparePositions, InvalidPositionError, positionToToken } from '@agent-ledger/event-store';
import { ReadModelStoreMismatchError } from '../errors/read-model-store-mismatch.error';
import { ProjectionRebuilder } from '../rebuild/projection-rebuilder';
import type { RebuildResult } from '../rebuild/rebuild-progress';
import type { ProjectionSource } from '../runner/projection-source';
import { PROJECTED_EVENTS_FILTER } from '../runner/projection-source';
import type { ProjectionStore } from '../store/projection-store';
import type { StoreMismatchPolicy } from './store-mismatch-policy';
import { StoreMismatchPolicy as Policy } from './store-mismatch-policy';

/** How a source's store compares with the one the read models recorded. */
export const SourceIdentityVerdict = {
  /** The recorded identity is the store's. */
  SAME: 'same',
  /** Nothing of the source in the read models yet: the store's identity is recorded now. */
  NEW: 'new',
  /**
   * A file made before identities were recorded, whose checkpoints fit the
   * store (the event at each checkpoint is in the store and was applied):
   * the store's identity is recorded now.
   */
  ADOPTED: 'adopted',
  /** Another store: the recorded identity differs, or an older file's checkpoints do not fit the store. */
  MISMATCH: 'mismatch',
} as const;

/** Union of the values of {@link SourceIdentityVerdict}. */
export type SourceIdentityVerdict = (typeof SourceIdentityVerdict)[keyof typeof SourceIdentityVerdict];

/** The check of one source. */
export interface ReadModelSourceCheck {
  readonly source: string;
  /** The identity of the source's store now. */
  readonly storeId: string;
  /** The identity the read models had recorded for the source, or null. */
  readonly recordedStoreId: string | null;
  readonly verdict: SourceIdentityVerdict;
}

/**
 * Compares each source's store identity with the one the read models
 * recorded for it, recording it where there is none yet and the read models
 * provably come from that store (verdicts `new` and `adopted`). Writes
 * nothing else.
 *
 * A file made by a version that recorded no identity is adopted only when
 * every checkpoint of the source fits the store: the store holds a projected
 * event at exactly the checkpoint's position, and a projection applied that
 * event's stream up to that revision. Anything else is a mismatch: a
 * rebuild costs time, showing another store's runs costs trust.
 *
 * @throws the store's errors (an unreachable EventStoreDB...)
 */
export async function checkReadModelSources(store: ProjectionStore, sources: readonly ProjectionSource[]): Promise<ReadModelSourceCheck[]> {
  const recorded = store.sourceIdentities();
  const checks: ReadModelSourceCheck[] = [];
  for (const source of sources) {
    const storeId = (await source.store.storeIdentity()).id;
    const known = recorded.get(source.name);
    if (known !== undefined) {
      checks.push({ source: source.name, storeId, recordedStoreId: known, verdict: known === storeId ? SourceIdentityVerdict.SAME : SourceIdentityVerdict.MISMATCH });
      continue;
    }
    const positions = uniquePositions(store, source.name);
    if (positions.length === 0) {
      store.recordSourceIdentity(source.name, storeId);
      checks.push({ source: source.name, storeId, recordedStoreId: null, verdict: SourceIdentityVerdict.NEW });
    } else if (await checkpointsFit(store, source, positions)) {
      store.recordSourceIdentity(source.name, storeId);
      checks.push({ source: source.name, storeId, recordedStoreId: null, verdict: SourceIdentityVerdict.ADOPTED });
    } else {
      checks.push({ source: source.name, storeId, recordedStoreId: null, verdict: SourceIdentityVerdict.MISMATCH });
    }
  }
  return checks;
}

/** Options of {@link ensureReadModelSources}. */
export interface EnsureReadModelSourcesOptions {
  /** What to do on a mismatch. @default StoreMismatchPolicy.REFUSE */
  readonly onMismatch?: StoreMismatchPolicy;
  /** Where to tell what was adopted and rebuilt. @default nowhere */
  readonly log?: (message: string) => void;
}

/** What {@link ensureReadModelSources} found and did. */
export interface EnsureReadModelSourcesResult {
  readonly checks: readonly ReadModelSourceCheck[];
  /** The rebuild made for a mismatch (policy `rebuild`), or null. */
  readonly rebuilt: RebuildResult | null;
}

/**
 * Makes sure the read models come from the sources' stores before anything
 * reads or feeds them ({@link checkReadModelSources}): on a mismatch, refuses
 * or rebuilds every projection from the sources, as `onMismatch` says.
 *
 * @throws ReadModelStoreMismatchError on a mismatch with the policy `refuse` (nothing is written)
 */
export async function ensureReadModelSources(
  store: ProjectionStore,
  sources: readonly ProjectionSource[],
  options: EnsureReadModelSourcesOptions = {},
): Promise<EnsureReadModelSourcesResult> {
  const checks = await checkReadModelSources(store, sources);
  for (const check of checks) {
    if (check.verdict === SourceIdentityVerdict.ADOPTED) {
      options.log?.(`Read models ${store.path}: source "${check.source}" recorded no store identity (an older version); its checkpoints fit store ${check.storeId}, which it now records`);
    }
  }
  const mismatches = checks.filter((c) => c.verdict === SourceIdentityVerdict.MISMATCH).map((c) => ({ source: c.source, recordedStoreId: c.recordedStoreId, currentStoreId: c.storeId }));
  if (mismatches.length === 0) return { checks, rebuilt: null };
  const error = new ReadModelStoreMismatchError(store.path, mismatches);
  if ((options.onMismatch ?? Policy.REFUSE) !== Policy.REBUILD) throw error;
  options.log?.(`${error.message}; rebuilding them (onStoreMismatch: rebuild)`);
  const rebuilt = await new ProjectionRebuilder(store, sources).rebuild();
  options.log?.(
    `Read models ${store.path} rebuilt from ${checks.map((c) => `"${c.source}" (store ${c.storeId})`).join(' and ')}: ${rebuilt.eventsDone} events in ${(rebuilt.elapsedMs / 1000).toFixed(1)} s`,
  );
  return { checks, rebuilt };
}

function uniquePositions(store: ProjectionStore, source: string): Position[] {
  const byToken = new Map<string, Position>();
  for (const checkpoint of store.checkpoints()) {
    if (checkpoint.source === source && checkpoint.position !== null) byToken.set(positionToToken(checkpoint.position), checkpoint.position);
  }
  return [...byToken.values()];
}

async function checkpointsFit(store: ProjectionStore, source: ProjectionSource, positions: readonly Position[]): Promise<boolean> {
  for (const position of positions) {
    let event: RecordedEvent | undefined;
    try {
      for await (const found of source.store.readAll({ fromPosition: position, maxCount: 1, filter: PROJECTED_EVENTS_FILTER })) event = found;
    } catch (error) {
      if (error instanceof InvalidPositionError) return false; // a position of another kind of store
      throw error;
    }
    if (event === undefined || comparePositions(event.position, position) !== 0) return false;
    const at = event;
    if (!store.projections.some((p) => (store.appliedRevision(p.name, at.streamName) ?? -1) >= Number(at.revision))) return false;
  }
  return true;
}
