import { createHash } from 'node:crypto';
import type { JsonObject } from '../json';
import type { AuditEvent } from './audit-events';
import { canonicalJson } from './canonical-json';

/** Any audit record's payload (every audit event is a link of the chain). */
export type AuditRecord = AuditEvent['data'];

/** The payload of an audit record without its own hash: what the hash covers. */
export type AuditRecordContent = AuditRecord extends infer R ? (R extends AuditRecord ? Omit<R, 'hash'> : never) : never;

/**
 * The hash of an audit record: SHA-256 (hex) of the canonical JSON of its
 * content, which includes the previous record's hash. Each record therefore
 * commits to the whole chain of the run's audit before it.
 */
export function auditRecordHash(content: AuditRecordContent): string {
  return hashOfContent(content);
}

/**
 * An audit record's payload **as stored**, in the schema version it was
 * written in (a version 1 record names its actor as a string, a version 2
 * record as a principal object). The hash covers exactly this payload, so a
 * chain is checked on the stored records, never on upcast ones
 * (`upcastEventData` is for reading what a record says, not for checking it).
 */
export interface StoredAuditRecord {
  readonly [field: string]: unknown;
  readonly sequence: number;
  readonly previousHash: string | null;
  readonly hash: string;
}

function hashOfContent(content: object): string {
  return createHash('sha256').update(canonicalJson(content as unknown as JsonObject)).digest('hex');
}

/** What is wrong at one place of a run's audit chain. */
export interface AuditChainBreak {
  /** The position in the stream (0-based) where the chain breaks. */
  readonly index: number;
  readonly stepId: string | null;
  readonly problem:
    /** The record's content does not give its hash: it was edited. */
    | 'hashMismatch'
    /** Its `previousHash` is not the hash of the record before it: one was removed, inserted or reordered. */
    | 'brokenLink'
    /** Its sequence number is not one more than the record before it. */
    | 'sequenceGap'
    /** A second audit record (`AuditRecorded`) for the same step. */
    | 'duplicateStep';
}

/**
 * What an {@link AuditChainChecker} keeps between two records, as plain JSON
 * data: {@link AuditChainChecker.snapshot} gives it, {@link AuditChainChecker.restore}
 * continues from it (a checkpoint of a verification, kept beside the read models).
 */
export interface AuditChainCheckerState {
  /** The hash and sequence of the last record checked, as stored (null before the first). */
  readonly previous: { readonly hash: string; readonly sequence: number } | null;
  /** The position (0-based) the next record has in the stream. */
  readonly index: number;
  /** The steps whose own audit record was seen, in the order seen. */
  readonly steps: readonly string[];
}

/**
 * Checks one run's audit chain record by record, in stream order, keeping
 * only what the next check needs (the previous record's hash and sequence,
 * and the steps seen): suited to streaming a whole store's audit history.
 */
export class AuditChainChecker {
  private previous: { hash: string; sequence: number } | null = null;
  private readonly steps = new Set<string>();
  private index = 0;

  /** A checker that continues from `state` as the one that gave it would. */
  static restore(state: AuditChainCheckerState): AuditChainChecker {
    const checker = new AuditChainChecker();
    checker.previous = state.previous === null ? null : { hash: state.previous.hash, sequence: state.previous.sequence };
    checker.index = state.index;
    for (const step of state.steps) checker.steps.add(step);
    return checker;
  }

  /** What this checker keeps, as plain data (see {@link restore}). */
  snapshot(): AuditChainCheckerState {
    return { previous: this.previous === null ? null : { ...this.previous }, index: this.index, steps: [...this.steps] };
  }

  /** Checks the next record, as stored; returns what is wrong with it (nothing when it is intact and linked). */
  add(record: StoredAuditRecord): AuditChainBreak[] {
    const index = this.index++;
    const breaks: AuditChainBreak[] = [];
    const stepId = typeof record.stepId === 'string' ? record.stepId : null;
    // Only a step's own audit record (the one with a `kind`) is once per step; a statement about the step (an input answer, a resolution) is not.
    const stepAudit = stepId !== null && 'kind' in record;
    const { hash, ...content } = record;
    if (hashOfContent(content) !== hash) breaks.push({ index, stepId, problem: 'hashMismatch' });
    if (record.previousHash !== (this.previous?.hash ?? null)) breaks.push({ index, stepId, problem: 'brokenLink' });
    if (record.sequence !== (this.previous?.sequence ?? 0) + 1) breaks.push({ index, stepId, problem: 'sequenceGap' });
    if (stepAudit && this.steps.has(stepId)) breaks.push({ index, stepId, problem: 'duplicateStep' });
    if (stepAudit) this.steps.add(stepId);
    this.previous = { hash, sequence: record.sequence };
    return breaks;
  }
}

/**
 * Verifies a run's audit chain, in stream order, on the records as stored. An empty result means every
 * record is intact and linked to the one before it, from the first.
 *
 * It proves that no record inside the chain was edited, removed, inserted or
 * reordered without rewriting every later record. It does not prove that the
 * chain is complete at its end (removing the last records leaves a valid
 * chain: compare with the run's writes), nor that nobody with write access
 * rewrote the whole chain with fresh hashes (anchor the latest hash elsewhere
 * for that).
 */
export function verifyAuditChain(records: readonly StoredAuditRecord[]): AuditChainBreak[] {
  const checker = new AuditChainChecker();
  return records.flatMap((record) => checker.add(record));
}
