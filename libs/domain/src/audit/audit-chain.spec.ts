import { deciderSpecification } from '../testing/decider-specification';
import type { RecordAudit } from './audit-commands';
import { auditRecordHash, verifyAuditChain } from './audit-chain';
import { auditDecider } from './audit-decider';
import type { AuditEvent, AuditRecorded } from './audit-events';
import { canonicalJson } from './canonical-json';

const T0 = Date.UTC(2026, 0, 1);
const command = (stepId: string, now: number): RecordAudit => ({
  type: 'RecordAudit',
  data: { runId: 'run-1', stepId, kind: 'tool', toolName: 'files.append', effect: 'NON_IDEMPOTENT_WRITE', idempotencyKey: `k:${stepId}`, outcome: 'succeeded', attempt: 1 },
  metadata: { now },
});

/** A chain of `n` audit records built by the decider itself. */
function chain(n: number): AuditRecorded['data'][] {
  const spec = deciderSpecification(auditDecider);
  const events: AuditEvent[] = [];
  for (let i = 0; i < n; i++) events.push(...spec.given(events).when(command(`run-1/r${i}/t0`, T0 + i)).events);
  return events.flatMap((e) => (e.type === 'AuditRecorded' ? [e.data] : []));
}

describe('canonicalJson', () => {
  it('gives the same text whatever the key order', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { z: true, y: null }], c: 'x' } })).toBe('{"a":{"c":"x","d":[1,{"y":null,"z":true}]},"b":1}');
    expect(canonicalJson({ a: 1, b: 2 })).toBe(canonicalJson({ b: 2, a: 1 }));
  });
});

describe('the audit chain', () => {
  it('links every record to the one before it, from a null first link', () => {
    const records = chain(3);
    expect(records[0]?.previousHash).toBeNull();
    expect(records[1]?.previousHash).toBe(records[0]?.hash);
    expect(records[2]?.previousHash).toBe(records[1]?.hash);
    expect(records.map((r) => r.hash)).toEqual(records.map(({ hash: _hash, ...content }) => auditRecordHash(content)));
    expect(verifyAuditChain(records)).toEqual([]);
  });

  it('detects an edited record', () => {
    const records = chain(3);
    const edited = records.map((r, i) => (i === 1 ? { ...r, outcome: 'failed' as const } : r));
    expect(verifyAuditChain(edited)).toEqual([{ index: 1, stepId: 'run-1/r1/t0', problem: 'hashMismatch' }]);
  });

  it('detects a removed record', () => {
    const records = chain(3);
    expect(verifyAuditChain([records[0], records[2]] as AuditRecorded['data'][])).toEqual([
      { index: 1, stepId: 'run-1/r2/t0', problem: 'brokenLink' },
      { index: 1, stepId: 'run-1/r2/t0', problem: 'sequenceGap' },
    ]);
  });

  it('detects reordered records', () => {
    const records = chain(3);
    const problems = verifyAuditChain([records[0], records[2], records[1]] as AuditRecorded['data'][]);
    expect(problems.map((p) => p.problem)).toContain('brokenLink');
    expect(problems.map((p) => p.index)).toEqual(expect.arrayContaining([1, 2]));
  });

  it('detects a record re-hashed after an edit, at the next link', () => {
    const records = chain(3);
    const { hash: _old, ...content } = { ...(records[1] as AuditRecorded['data']), toolName: 'files.read' };
    const forged = [records[0], { ...content, hash: auditRecordHash(content) }, records[2]] as AuditRecorded['data'][];
    expect(verifyAuditChain(forged)).toEqual([{ index: 2, stepId: 'run-1/r2/t0', problem: 'brokenLink' }]);
  });

  it('detects a second record of the same step', () => {
    const records = chain(2);
    const { hash: _h, ...content } = { ...(records[1] as AuditRecorded['data']), stepId: 'run-1/r0/t0', sequence: 3, previousHash: records[1]?.hash ?? null };
    const duplicate = [...records, { ...content, hash: auditRecordHash(content) }];
    expect(verifyAuditChain(duplicate)).toEqual([{ index: 2, stepId: 'run-1/r0/t0', problem: 'duplicateStep' }]);
  });
});
