import { renderPrometheusText } from './prometheus-text';

describe('renderPrometheusText', () => {
  it('writes HELP, TYPE and one line per sample, label values escaped', () => {
    const text = renderPrometheusText([
      { name: 'agent_ledger_runs', help: 'Runs by status', type: 'gauge', samples: [{ labels: { status: 'QUEUED' }, value: 2 }, { labels: { status: 'a"b\\c\nd' }, value: 0 }] },
      { name: 'agent_ledger_lease_lost_total', help: 'Lease losses', type: 'counter', samples: [{ value: 1 }] },
    ]);
    expect(text).toBe(
      [
        '# HELP agent_ledger_runs Runs by status',
        '# TYPE agent_ledger_runs gauge',
        'agent_ledger_runs{status="QUEUED"} 2',
        'agent_ledger_runs{status="a\\"b\\\\c\\nd"} 0',
        '# HELP agent_ledger_lease_lost_total Lease losses',
        '# TYPE agent_ledger_lease_lost_total counter',
        'agent_ledger_lease_lost_total 1',
        '',
      ].join('\n'),
    );
  });

  it('refuses a name the format does not allow', () => {
    expect(() => renderPrometheusText([{ name: 'agent-ledger', help: '', type: 'gauge', samples: [] }])).toThrow('agent-ledger');
    expect(() => renderPrometheusText([{ name: 'x', help: '', type: 'gauge', samples: [{ labels: { 'a-b': '1' }, value: 1 }] }])).toThrow('a-b');
  });
});
