import { UnsupportedEventSchemaError } from '../errors/unsupported-event-schema.error';
import { decodeAuditEvent, decodeEvent, decodeRunEvent, encodeEvent } from './event-codec';

const v1Grant = { type: 'ApprovalGranted', data: { runId: 'r1', round: 0, stepIds: ['r1/r0/t0'], decidedBy: 'alice', reason: null, decidedAt: 5 }, metadata: { schemaVersion: 1 } };

describe('the event codec', () => {
  it('decodes a stored event into its domain event, upcast from the version its metadata states', () => {
    expect(decodeEvent(v1Grant)).toEqual({ type: 'ApprovalGranted', data: { ...v1Grant.data, decidedBy: { kind: 'unverified', name: 'alice' } } });
    // No metadata, or none stating a version: version 1.
    expect(decodeEvent({ type: 'CancelRequested', data: { runId: 'r1', requestedBy: 'key:ops', reason: null, requestedAt: 1 } })).toMatchObject({
      data: { requestedBy: { kind: 'unverified', name: 'key:ops' } },
    });
    const current = { type: 'ApprovalGranted', data: { ...v1Grant.data, decidedBy: { kind: 'apiKey', id: 'ops' } }, metadata: { schemaVersion: 2 } };
    expect(decodeEvent(current)).toEqual({ type: 'ApprovalGranted', data: current.data });
  });

  it('answers null for a type this version does not know, and refuses a schema version newer than it reads', () => {
    expect(decodeEvent({ type: 'SomethingNew', data: { runId: 'r1' }, metadata: { schemaVersion: 9 } })).toBeNull();
    expect(() => decodeEvent({ ...v1Grant, metadata: { schemaVersion: 3 } })).toThrow(UnsupportedEventSchemaError);
  });

  it('decodes by stream family: a run reader gets null for an audit type, an audit reader for a run type', () => {
    const audit = { type: 'AuditRecorded', data: { runId: 'r1', stepId: 's', sequence: 1 }, metadata: { schemaVersion: 1 } };
    expect(decodeRunEvent(audit)).toBeNull();
    expect(decodeAuditEvent(audit)).toEqual({ type: 'AuditRecorded', data: audit.data });
    expect(decodeAuditEvent(v1Grant)).toBeNull();
    expect(decodeRunEvent(v1Grant)?.type).toBe('ApprovalGranted');
  });

  it('encodes an event with its type current schema version and its causation, which decode reads back as it was', () => {
    const event = { type: 'ApprovalGranted', data: { ...v1Grant.data, decidedBy: { kind: 'apiKey', id: 'ops' } } };
    const encoded = encodeEvent(event, { correlationId: 'r1', causationId: 'c1' });
    expect(encoded).toEqual({ type: 'ApprovalGranted', data: event.data, metadata: { schemaVersion: 2, $correlationId: 'r1', $causationId: 'c1' } });
    expect(encodeEvent({ type: 'RunClaimed', data: {} }).metadata).toEqual({ schemaVersion: 1 });
    expect(decodeEvent({ ...encoded, data: event.data })).toEqual(event);
  });
});
