import type { StreamedEvent } from '@agent-ledger/client';
import { timelineEntryOf } from './timeline-entry';

const event = (type: string, data: Record<string, unknown>): StreamedEvent => ({ type, streamName: 'run-r1', revision: 0, position: '7:7', data, metadata: { schemaVersion: 2 }, created: '2026-11-30T08:00:00.000Z' });

describe('timelineEntryOf', () => {
  it('a tool step carries its declared effect', () => {
    const started = timelineEntryOf(event('StepStarted', { stepId: 'r1/r0/t0', kind: 'tool', toolName: 'files.append', effect: 'NON_IDEMPOTENT_WRITE', idempotencyKey: 'k' }));
    expect(started).toMatchObject({ effect: 'NON_IDEMPOTENT_WRITE', stepId: 'r1/r0/t0', title: 'Tool files.append started' });
    const executed = timelineEntryOf(event('ToolExecuted', { stepId: 'r1/r0/t0', toolName: 'files.append', effect: 'NON_IDEMPOTENT_WRITE', outcome: 'succeeded', result: { ok: true } }));
    expect(executed).toMatchObject({ effect: 'NON_IDEMPOTENT_WRITE', tone: 'good', detail: 'result {"ok":true}' });
  });

  it("an MCP tool's effect conflict is a warning on its step, with both effects and the one it runs with", () => {
    const conflict = timelineEntryOf(
      event('ToolEffectConflictRecorded', { stepId: 'r1/r0/t1', toolName: 'fs.write_file', server: 'fs', tool: 'write_file', declared: 'READ_ONLY', hinted: 'IDEMPOTENT_WRITE', trusted: false, effect: 'IDEMPOTENT_WRITE', effectSource: 'hint' }),
    );
    expect(conflict).toMatchObject({
      tone: 'warn',
      stepId: 'r1/r0/t1',
      effect: 'IDEMPOTENT_WRITE',
      title: "fs.write_file: its effect's declaration and hints conflict",
      detail: 'MCP server fs: declared READ_ONLY, hints IDEMPOTENT_WRITE (untrusted); runs as IDEMPOTENT_WRITE',
    });
  });

  it('a failure shows its reason, class and the write in flight', () => {
    const failed = timelineEntryOf(
      event('RunFailed', {
        reason: 'AUDIT_PERSISTENCE_FAILED',
        deadLettered: false,
        failure: { failureClass: 'unknown', code: 'AUDIT_PERSISTENCE_FAILED', message: 'audit not stored' },
        inFlightWrite: { stepId: 'r1/r0/t0', toolName: 'files.append', effect: 'NON_IDEMPOTENT_WRITE' },
      }),
    );
    expect(failed.tone).toBe('bad');
    expect(failed.title).toBe('Failed: AUDIT_PERSISTENCE_FAILED');
    expect(failed.detail).toBe('unknown / AUDIT_PERSISTENCE_FAILED: audit not stored; write in flight: files.append (NON_IDEMPOTENT_WRITE) at r1/r0/t0');
  });

  it('who decided is shown as the principal\'s label, as the read models show it', () => {
    expect(timelineEntryOf(event('ApprovalGranted', { decidedBy: { kind: 'apiKey', id: 'ops' }, reason: 'fine' })).title).toBe('Approved by key:ops');
    expect(timelineEntryOf(event('ApprovalDenied', { decidedBy: { kind: 'development' }, reason: null, onDenial: 'endRun' })).title).toBe('Denied by development');
    expect(timelineEntryOf(event('InputSubmitted', { submittedBy: { kind: 'bus', id: 'billing' }, input: 'T-7' })).title).toBe('Input from bus:billing');
    expect(timelineEntryOf(event('CancelRequested', { requestedBy: { kind: 'unverified', name: 'alice' }, reason: null })).title).toBe('Cancel requested by unverified:alice');
    expect(timelineEntryOf(event('RunRequeuedByOperator', { requestedBy: { kind: 'apiKey', id: 'ops' }, continuationRunId: 'r2', reason: null })).title).toBe('Requeued by key:ops as r2');
  });

  it('a model call has no effect; an unknown event is shown raw', () => {
    expect(timelineEntryOf(event('StepStarted', { stepId: 's', kind: 'llm', toolName: null, effect: null, idempotencyKey: null }))).toMatchObject({ effect: null, title: 'Model call started' });
    expect(timelineEntryOf(event('SomethingNew', { a: 1 }))).toMatchObject({ title: 'SomethingNew', detail: '{"a":1}', key: '7:7' });
  });
});
