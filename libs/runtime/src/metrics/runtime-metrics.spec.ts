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
});
