import { auditRecordHash, verifyAuditChain } from '../audit/audit-chain';
import type { AuditRecordContent } from '../audit/audit-chain';
import { UnsupportedEventSchemaError } from '../errors/unsupported-event-schema.error';
import { principalLabel } from '../principal/principal';
import { RUN_EVENT_SCHEMA_VERSIONS } from '../run/run-events';
import { currentSchemaVersion, EVENT_SCHEMA_VERSIONS, EVENT_UPCASTERS, storedSchemaVersion, upcastEventData } from './event-schemas';

/** Each event type whose actor became a principal in version 2, and the field. */
const ACTOR_FIELDS = [
  ['CancelRequested', 'requestedBy'],
  ['RunCancelled', 'requestedBy'],
  ['RunRequeuedByOperator', 'requestedBy'],
  ['ApprovalGranted', 'decidedBy'],
  ['ApprovalDenied', 'decidedBy'],
  ['InputSubmitted', 'submittedBy'],
  ['WriteResolutionRecorded', 'resolvedBy'],
  ['ApprovalDecisionRecorded', 'decidedBy'],
] as const;

describe('the event schema registry', () => {
  it('has an upcaster for every version below the current one of every type', () => {
    for (const [type, current] of Object.entries(EVENT_SCHEMA_VERSIONS)) {
      for (let version = 1; version < current; version++) {
        expect([type, version, typeof EVENT_UPCASTERS[type as keyof typeof EVENT_UPCASTERS]?.[version]]).toEqual([type, version, 'function']);
      }
    }
  });

  it('records version 2 for every event whose actor is a principal, and 1 for the others', () => {
    for (const [type] of ACTOR_FIELDS) expect([type, currentSchemaVersion(type)]).toEqual([type, 2]);
    expect(currentSchemaVersion('RunRequested')).toBe(2);
    expect(currentSchemaVersion('RunStartRecorded')).toBe(1);
    expect(currentSchemaVersion('AuditRecorded')).toBe(1);
    expect(currentSchemaVersion('SomethingNew')).toBe(1);
    expect(Object.keys(RUN_EVENT_SCHEMA_VERSIONS).every((type) => type in EVENT_SCHEMA_VERSIONS)).toBe(true);
  });

  it.each(ACTOR_FIELDS)('reads a version 1 %s: its free name %s becomes an unverified principal, whatever it says', (type, field) => {
    for (const name of ['alice', 'http-api', 'key:ops', 'development']) {
      const upcast = upcastEventData(type, 1, { runId: 'r1', [field]: name, reason: 'why' });
      expect(upcast).toEqual({ runId: 'r1', [field]: { kind: 'unverified', name }, reason: 'why' });
      expect(principalLabel(upcast[field] as never)).toBe(`unverified:${name}`);
    }
    // A version 1 record claiming to be a principal object is still a name nobody checked.
    expect(upcastEventData(type, 1, { [field]: { kind: 'apiKey', id: 'ops' } })[field]).toEqual({ kind: 'unverified', name: '{"kind":"apiKey","id":"ops"}' });
  });

  it('reads a version 1 RunRequested, which recorded nobody, as started by an unverified principal that says so', () => {
    const v1 = { runId: 'r1', agent: 'a', input: 'go', mode: 'queued', maxIterations: 20, requestedAt: 5 };
    expect(upcastEventData('RunRequested', 1, v1)).toEqual({ ...v1, requestedBy: { kind: 'unverified', name: '(not recorded)' } });
    expect(principalLabel(upcastEventData('RunRequested', 1, v1)['requestedBy'] as never)).toBe('unverified:(not recorded)');
    const current = { ...v1, requestedBy: { kind: 'apiKey', id: 'ops' } };
    expect(upcastEventData('RunRequested', 2, current)).toBe(current);
  });

  it('keeps a current payload as it is, and reads an event without a stated version as version 1', () => {
    const data = { runId: 'r1', decidedBy: { kind: 'apiKey', id: 'ops' } };
    expect(upcastEventData('ApprovalGranted', 2, data)).toBe(data);
    expect(upcastEventData('RunClaimed', 1, data)).toBe(data);
    expect(upcastEventData('NotOurs', 7, data)).toBe(data);
    expect(storedSchemaVersion({})).toBe(1);
    expect(storedSchemaVersion(undefined)).toBe(1);
    expect(storedSchemaVersion({ schemaVersion: 2 })).toBe(2);
  });

  it('refuses a version newer than it reads, or not a version, naming the type and the version', () => {
    for (const version of [3, 0, 1.5, '2', null]) {
      expect(() => upcastEventData('ApprovalGranted', version, {})).toThrow(UnsupportedEventSchemaError);
    }
    expect(() => upcastEventData('ApprovalGranted', 3, {})).toThrow('The stored ApprovalGranted has schema version 3; this version reads versions 1 to 2');
  });

  it('never serves a chain check: a version 1 audit record verifies as stored, and its upcast shape would not', () => {
    const content = {
      runId: 'r1',
      round: 0,
      sequence: 1,
      decision: 'approved',
      calls: [],
      decidedBy: 'alice',
      reason: null,
      recordedAt: 1,
      previousHash: null,
    } as unknown as AuditRecordContent;
    const stored = { ...content, hash: auditRecordHash(content) } as unknown as Record<string, unknown> & { sequence: number; previousHash: null; hash: string };
    expect(verifyAuditChain([stored])).toEqual([]);
    const upcast = upcastEventData('ApprovalDecisionRecorded', 1, stored) as typeof stored;
    expect(verifyAuditChain([upcast])).toMatchObject([{ index: 0, problem: 'hashMismatch' }]);
  });
});
