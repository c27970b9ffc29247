import type { AuditStoreVerdict as AuditVerdict } from '@agent-ledger/client';
import { verdictSummary } from './verdict-summary';

const verdict = (over: Partial<AuditVerdict>): AuditVerdict => ({
  runs: 2,
  records: 6,
  brokenRuns: [],
  breaks: [],
  findings: false,
  problems: [],
  totals: { writesExecuted: 1, writesAudited: 1, auditedLate: 0, writesWithoutAudit: 0, writesWithoutAuditNotAllowed: 0, writesAwaitingAudit: 0, runsWithoutAuditStream: 0, auditedRunsUnknownToRunStore: 0 },
  writesWithoutAudit: [],
  auditedLate: [],
  writesAwaitingAudit: [],
  auditedRunsUnknownToRunStore: [],
  verification: { mode: 'full', fullBecause: null, eventsRead: 12, headsChecked: 2, headRounds: 0, checkpoint: null, durationMs: 1 },
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
