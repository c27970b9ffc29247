import type { AuditVerdict } from '../api/types';
import { verdictSummary } from './verdict-summary';

const verdict = (over: Partial<AuditVerdict>): AuditVerdict => ({
  runs: 2,
  records: 6,
  brokenRuns: [],
  breaks: [],
  findings: false,
  problems: [],
  totals: { writesExecuted: 1 },
  writesWithoutAudit: [],
  auditedLate: [],
  verification: { mode: 'full', fullBecause: null, durationMs: 1 },
  ...over,
});

describe('verdictSummary', () => {
  it('says what was checked when there is no finding', () => {
    expect(verdictSummary(verdict({}))).toBe('No finding: 2 chains (6 records), 1 write matched to the audit store.');
  });

  it("gives the verdict's problems when there are findings", () => {
    expect(verdictSummary(verdict({ findings: true, problems: ['a', 'b'] }))).toBe('Findings: a; b.');
  });
});
