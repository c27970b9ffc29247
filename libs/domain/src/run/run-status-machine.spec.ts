import { RUN_EVENT_TYPES } from './run-events';
import type { RunEventType } from './run-events';
import { runStatusAfter } from './run-status-machine';
import { RunStatus } from './run-status';

/** Where each event type leads a run that is not settled; `same` keeps its status. Written out here, not read from the machine. */
const LEADS_TO: Record<RunEventType, RunStatus | 'same'> = {
  RunRequested: 'same',
  RunClaimed: 'RUNNING',
  LeaseRenewed: 'same',
  StepStarted: 'same',
  ModelResponded: 'same',
  ToolExecuted: 'same',
  RunRequeued: 'QUEUED',
  RunCompleted: 'COMPLETED',
  RunFailed: 'FAILED',
  CancelRequested: 'same',
  RunCancelled: 'CANCELLED',
  AuditGapDetected: 'same',
  RunRequeuedByOperator: 'same',
  ApprovalRequested: 'WAITING_FOR_APPROVAL',
  ToolCallPreApproved: 'same',
  ToolEffectConflictRecorded: 'same',
  ApprovalGranted: 'QUEUED',
  ApprovalDenied: 'QUEUED',
  InputRequested: 'WAITING_FOR_INPUT',
  InputSubmitted: 'QUEUED',
};

const UNSETTLED: readonly RunStatus[] = ['QUEUED', 'RUNNING', 'WAITING_FOR_APPROVAL', 'WAITING_FOR_INPUT'];
const SETTLED: readonly RunStatus[] = ['COMPLETED', 'FAILED', 'CANCELLED'];

describe('the run-status machine', () => {
  it('describes every run event type (a new type must say where it leads)', () => {
    expect(Object.keys(LEADS_TO).sort()).toEqual([...RUN_EVENT_TYPES].sort());
    expect([...UNSETTLED, ...SETTLED].sort()).toEqual(Object.values(RunStatus).sort());
  });

  it('starts a run on RunRequested only: every other event of a run never requested leaves it unknown', () => {
    for (const type of RUN_EVENT_TYPES) expect([type, runStatusAfter(null, { type })]).toEqual([type, type === 'RunRequested' ? 'QUEUED' : null]);
  });

  it.each(UNSETTLED)('leads a %s run where each event type says', (from) => {
    for (const type of RUN_EVENT_TYPES) {
      const to = LEADS_TO[type];
      expect([type, runStatusAfter(from, { type })]).toEqual([type, to === 'same' ? from : to]);
    }
  });

  it.each(SETTLED)('never moves a %s run, whatever comes after', (from) => {
    for (const type of RUN_EVENT_TYPES) expect([type, runStatusAfter(from, { type })]).toEqual([type, from]);
  });

  it('leaves the status as it is for a type this version does not know', () => {
    expect(runStatusAfter('RUNNING', { type: 'SomethingNew' as RunEventType })).toBe('RUNNING');
    expect(runStatusAfter(null, { type: 'SomethingNew' as RunEventType })).toBeNull();
  });
});
