import { InvalidFieldError } from '../errors/invalid-field.error';
import type { RunMode } from './run-mode';

/** What kind of process executes a segment of a run. */
export const SegmentKind = {
  /** A queue worker; claims queued runs. */
  WORKER: 'worker',
  /** The caller of an interactive run; claims that run once. */
  INTERACTIVE: 'interactive',
} as const;

/** One of the {@link SegmentKind} values. */
export type SegmentKind = (typeof SegmentKind)[keyof typeof SegmentKind];

/** A lease owner's parsed identity: `kind:host:pid[:tag]`. */
export interface SegmentOwner {
  readonly kind: SegmentKind;
  readonly host: string;
  readonly pid: number;
  readonly tag?: string;
}

const OWNER_PATTERN = /^(worker|interactive):([^:\s]+):(\d+)(?::([^\s]+))?$/;

/**
 * The lease owner string of a segment: `worker:host:pid`, optionally with a tag
 * that tells apart segments of one process.
 */
export function formatSegmentOwner(owner: SegmentOwner): string {
  const base = `${owner.kind}:${owner.host}:${owner.pid}`;
  return owner.tag === undefined ? base : `${base}:${owner.tag}`;
}

/**
 * Parses a lease owner string.
 *
 * @throws {@link InvalidFieldError} naming `field` when it is not `kind:host:pid[:tag]`.
 */
export function parseSegmentOwner(owner: string, field = 'owner'): SegmentOwner {
  const match = OWNER_PATTERN.exec(owner);
  if (match === null) {
    throw new InvalidFieldError(field, `must look like "worker:host:pid" or "interactive:host:pid[:tag]" (got "${owner}")`);
  }
  const [, kind, host, pid, tag] = match as unknown as [string, SegmentKind, string, string, string | undefined];
  return tag === undefined ? { kind, host, pid: Number(pid) } : { kind, host, pid: Number(pid), tag };
}

/** The kind of segment that may claim a run of this mode. */
export function segmentKindFor(mode: RunMode): SegmentKind {
  return mode === 'interactive' ? SegmentKind.INTERACTIVE : SegmentKind.WORKER;
}
