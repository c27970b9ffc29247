import { Inject, Injectable } from '@nestjs/common';
import type { EventStore } from '@agent-ledger/event-store';
import { isEventStoreError } from '@agent-ledger/event-store';
import { AUDIT_EVENT_STORE, RUN_EVENT_STORE } from '@agent-ledger/runtime';
import type { AuthMode, HttpApiOptions } from '../http-api-options';
import { authDisabledWarning } from '../auth/auth-mode-warning';
import type { ProjectionStatusWithLag } from '../projections/projection-lag.service';
import { ProjectionLagService } from '../projections/projection-lag.service';
import { HTTP_API_OPTIONS } from '../http-api-options';

/** How long one readiness probe may take before it counts as a failure. */
export const READINESS_PROBE_TIMEOUT_MS = 3000;

/** One check of the readiness report. */
export interface ReadinessCheck {
  readonly ok: boolean;
  /** Why not, when not ok: an error code (`STORE_UNAVAILABLE`, `TIMEOUT`...) or `LAGGING`. */
  readonly problem?: string;
  readonly message?: string;
}

/** The readiness of one projection in one source. */
export interface ProjectionReadiness extends ReadinessCheck {
  /** The projection (`runStatus`, `steps`, `auditReview`), or `*` when their status could not be read. */
  readonly projection: string;
  readonly source: string;
  readonly position: string | null;
  readonly headPosition: string | null;
  readonly lag: ProjectionStatusWithLag['lag'];
}

/** One indicator in the `@nestjs/terminus` shape: `up` or `down`, with its details. */
export type HealthIndicatorResult = Readonly<Record<string, { readonly status: 'up' | 'down'; readonly [detail: string]: unknown }>>;

/**
 * The body of `GET /ready`, in the `@nestjs/terminus` shape (`status`,
 * `info`, `error`, `details`, keyed `store:<name>` and
 * `projection:<name>@<source>`), with the same facts also grouped by kind.
 */
export interface ReadinessReport {
  readonly status: 'ok' | 'error';
  /** The indicators that are up. */
  readonly info: HealthIndicatorResult;
  /** The indicators that are down. */
  readonly error: HealthIndicatorResult;
  /** Every indicator. */
  readonly details: HealthIndicatorResult;
  /** Whether each store answered a cheap read (`runs`, and `audit` when the audit streams live apart). */
  readonly stores: Readonly<Record<string, ReadinessCheck>>;
  /** Whether each projection is less than `maxLag` events behind its source. */
  readonly projections: readonly ProjectionReadiness[];
  /** `READY_MAX_PROJECTION_LAG`. */
  readonly maxLag: number;
  /** How requests are authenticated; `warning` when authentication is disabled (it does not make the service unready). */
  readonly auth: { readonly mode: AuthMode; readonly warning?: string };
}

/**
 * Readiness: the stores answer a read of their last event, and every
 * projection is fewer than `READY_MAX_PROJECTION_LAG` events behind. Each
 * probe is bounded by {@link READINESS_PROBE_TIMEOUT_MS}.
 */
@Injectable()
export class ReadinessService {
  constructor(
    @Inject(RUN_EVENT_STORE) private readonly runStore: EventStore,
    @Inject(AUDIT_EVENT_STORE) private readonly auditStore: EventStore,
    @Inject(HTTP_API_OPTIONS) private readonly config: HttpApiOptions,
    private readonly lag: ProjectionLagService,
  ) {}

  async check(): Promise<ReadinessReport> {
    const maxLag = this.config.readyMaxProjectionLag;
    const stores: Record<string, ReadinessCheck> = { runs: await probe(() => lastEvent(this.runStore)) };
    if (this.auditStore !== this.runStore) stores.audit = await probe(() => lastEvent(this.auditStore));
    let projections: ReadinessReport['projections'];
    try {
      const entries = await withTimeout(this.lag.status(maxLag));
      projections = entries
        .filter((entry) => entry.lag !== null)
        .map((entry) => {
          const lagging = entry.lag !== null && (entry.lag.atLeast || entry.lag.events >= maxLag);
          const view = { projection: entry.projection, source: entry.source, position: entry.position, headPosition: entry.headPosition, lag: entry.lag };
          return lagging ? { ...view, ok: false, problem: 'LAGGING', message: `at least ${maxLag} events behind` } : { ...view, ok: true };
        });
    } catch (error) {
      projections = [{ projection: '*', source: '*', position: null, headPosition: null, lag: null, ...failure(error) }];
    }
    const ready = Object.values(stores).every((c) => c.ok) && projections.every((p) => p.ok);
    const { mode } = this.config.auth;
    const auth = mode === 'disabled-on-loopback' ? { mode, warning: authDisabledWarning(this.config) } : { mode };
    const details: Record<string, { status: 'up' | 'down'; [detail: string]: unknown }> = {};
    for (const [name, check] of Object.entries(stores)) details[`store:${name}`] = indicator(check);
    for (const p of projections) details[`projection:${p.projection}@${p.source}`] = indicator(p);
    const pick = (status: 'up' | 'down') => Object.fromEntries(Object.entries(details).filter(([, d]) => d.status === status));
    return { status: ready ? 'ok' : 'error', info: pick('up'), error: pick('down'), details, stores, projections, maxLag, auth };
  }
}

function indicator(check: ReadinessCheck): { status: 'up' | 'down'; [detail: string]: unknown } {
  const { ok, ...rest } = check;
  return { status: ok ? 'up' : 'down', ...rest };
}

async function lastEvent(store: EventStore): Promise<void> {
  for await (const _event of store.readAll({ direction: 'backwards', fromPosition: 'end', maxCount: 1 })) break;
}

async function probe(read: () => Promise<void>): Promise<ReadinessCheck> {
  try {
    await withTimeout(read());
    return { ok: true };
  } catch (error) {
    return failure(error);
  }
}

function failure(error: unknown): ReadinessCheck & { ok: false } {
  if (error instanceof ProbeTimeoutError) return { ok: false, problem: 'TIMEOUT', message: error.message };
  if (isEventStoreError(error)) return { ok: false, problem: error.code, message: error.message };
  const code = typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'string' ? (error as { code: string }).code : 'ERROR';
  return { ok: false, problem: code, message: error instanceof Error ? error.message : String(error) };
}

class ProbeTimeoutError extends Error {
  constructor() {
    super(`no answer within ${READINESS_PROBE_TIMEOUT_MS} ms`);
  }
}

async function withTimeout<T>(work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ProbeTimeoutError()), READINESS_PROBE_TIMEOUT_MS);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
