import { RuntimeMetrics } from './runtime-metrics';

describe('RuntimeMetrics', () => {
  it('counts plain counters, zeros included in the snapshot', () => {
    const metrics = new RuntimeMetrics();
    metrics.increment('leaseLost');
    metrics.increment('leaseLost', 2);
    expect(metrics.get('leaseLost')).toBe(3);
    expect(metrics.snapshot()).toMatchObject({ leaseLost: 3, reaperRuns: 0 });
  });

  it('keeps one series per label set, whatever the order of the labels', () => {
    const metrics = new RuntimeMetrics();
    metrics.incrementLabelled('auditFailures', { effect: 'IDEMPOTENT_WRITE', mode: 'fail_closed' });
    metrics.incrementLabelled('auditFailures', { mode: 'fail_closed', effect: 'IDEMPOTENT_WRITE' });
    metrics.incrementLabelled('auditFailures', { effect: 'READ_ONLY', mode: 'fail_soft' });
    expect(metrics.labelled('auditFailures')).toEqual([
      { labels: { effect: 'IDEMPOTENT_WRITE', mode: 'fail_closed' }, value: 2 },
      { labels: { effect: 'READ_ONLY', mode: 'fail_soft' }, value: 1 },
    ]);
    expect(metrics.labelled('reaperActions')).toEqual([]);
  });

  it("adds its worker processes' last reports, and keeps a retired one's counts in the totals", () => {
    const metrics = new RuntimeMetrics();
    metrics.increment('toolExecutions');
    metrics.incrementLabelled('reaperActions', { action: 'requeued' });
    metrics.absorb('worker-1', { counters: { toolExecutions: 5 }, labelled: { reaperActions: [{ labels: { action: 'requeued' }, value: 2 }] } });
    metrics.absorb('worker-1', { counters: { toolExecutions: 7 }, labelled: { reaperActions: [{ labels: { action: 'requeued' }, value: 3 }] } });
    expect(metrics.get('toolExecutions')).toBe(8);
    expect(metrics.labelled('reaperActions')).toEqual([{ labels: { action: 'requeued' }, value: 4 }]);
    metrics.retire('worker-1');
    metrics.absorb('worker-1b', { counters: { toolExecutions: 1 }, labelled: { reaperActions: [{ labels: { action: 'failed' }, value: 1 }] } });
    expect(metrics.get('toolExecutions')).toBe(9);
    expect(metrics.labelled('reaperActions')).toEqual([
      { labels: { action: 'requeued' }, value: 4 },
      { labels: { action: 'failed' }, value: 1 },
    ]);
    // What it sends its own supervisor is its own counts only.
    expect(metrics.ownSnapshot()).toEqual({ counters: { toolExecutions: 1 }, labelled: { reaperActions: [{ labels: { action: 'requeued' }, value: 1 }] } });
  });
});
