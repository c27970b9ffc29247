import { RUN_STATUS_ENTERED_BY } from '@agent-ledger/domain';
import { QUEUE_EVENT_TYPES } from './runnable-runs-projection';

describe('the event types the queue reads', () => {
  it('holds every type that moves a run, carries its lease, or asks to cancel it', () => {
    const moving = Object.entries(RUN_STATUS_ENTERED_BY).flatMap(([type, status]) => (status === null ? [] : [type]));
    expect(moving.length).toBeGreaterThan(5);
    expect(QUEUE_EVENT_TYPES).toEqual(expect.arrayContaining([...moving, 'RunClaimed', 'LeaseRenewed', 'StepStarted', 'CancelRequested']));
  });

  it('leaves out what a step records besides its fence, so the store filters it out', () => {
    for (const type of ['ToolExecuted', 'ModelResponded', 'ToolCallPreApproved', 'ToolEffectConflictRecorded', 'AuditRecorded']) {
      expect(QUEUE_EVENT_TYPES.some((prefix) => type.startsWith(prefix))).toBe(false);
    }
  });
});
