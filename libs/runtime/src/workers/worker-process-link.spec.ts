import { isWorkerProcessReport } from './worker-process-link';

describe('isWorkerProcessReport', () => {
  it('takes a metrics report, and nothing that is not one', () => {
    const report = { type: 'agent-ledger:metrics', snapshot: { counters: { toolExecutions: 2 }, labelled: { reaperActions: [{ labels: { action: 'requeued' }, value: 1 }] } } };
    expect(isWorkerProcessReport(report)).toBe(true);
    expect(isWorkerProcessReport({ ...report, type: 'other' })).toBe(false);
    expect(isWorkerProcessReport({ ...report, snapshot: { counters: { toolExecutions: 'two' }, labelled: {} } })).toBe(false);
    expect(isWorkerProcessReport({ ...report, snapshot: { counters: {}, labelled: { reaperActions: [{ value: 1 }] } } })).toBe(false);
    expect(isWorkerProcessReport({ ...report, snapshot: null })).toBe(false);
    expect(isWorkerProcessReport('agent-ledger:metrics')).toBe(false);
  });
});
