import { hostname } from 'node:os';
import type { SegmentKind } from '@agent-ledger/domain';
import { formatSegmentOwner } from '@agent-ledger/domain';

let counter = 0;

/**
 * A fresh lease owner for a segment of this process: `kind:host:pid:tag`,
 * where the tag tells apart the segments of one process.
 */
export function newSegmentOwner(kind: SegmentKind): string {
  counter += 1;
  const host = hostname().replace(/[^A-Za-z0-9.-]/g, '-') || 'host';
  return formatSegmentOwner({ kind, host, pid: process.pid, tag: `s${counter.toString(36)}` });
}
