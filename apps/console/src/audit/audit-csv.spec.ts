import type { AuditWriteView as AuditWrite } from '@agent-ledger/client';
import { AUDIT_CSV_COLUMNS, auditWritesCsv } from './audit-csv';

const write = (over: Partial<AuditWrite>): AuditWrite => ({
  stepId: 'r1/r0/t0',
  runId: 'r1',
  toolName: 'files.append',
  effect: 'NON_IDEMPOTENT_WRITE',
  firstStartedAt: 1,
  executedAt: Date.UTC(2026, 10, 30, 8, 0, 0),
  outcome: 'succeeded',
  audited: false,
  auditSequence: null,
  idempotencyKey: null,
  starts: 1,
  executedAttempt: 1,
  auditAttempt: null,
  auditRecordedAt: null,
  gapRunAlreadySettled: null,
  gapDetectedAt: null,
  gapDetectedBy: null,
  failedRunReason: 'AUDIT_PERSISTENCE_FAILED',
  runStartedBy: 'key:ops',
  ...over,
});

describe('auditWritesCsv', () => {
  it('has a header and one CRLF line per write, times in ISO 8601, nulls empty', () => {
    const csv = auditWritesCsv([write({})]);
    expect(csv).toBe(`${AUDIT_CSV_COLUMNS.join(',')}\r\nr1/r0/t0,r1,key:ops,files.append,NON_IDEMPOTENT_WRITE,2026-11-30T08:00:00.000Z,succeeded,false,,,,AUDIT_PERSISTENCE_FAILED\r\n`);
  });

  it('quotes commas, quotes and line breaks, and defuses spreadsheet formulas', () => {
    const csv = auditWritesCsv([write({ runId: 'a,"b"\nc', toolName: '=HYPERLINK("x")' })]);
    const line = csv.split('\r\n')[1];
    expect(line).toContain('"a,""b""\nc"');
    expect(line).toContain(`"'=HYPERLINK(""x"")"`);
  });

  it('is only the header for no writes', () => {
    expect(auditWritesCsv([])).toBe(`${AUDIT_CSV_COLUMNS.join(',')}\r\n`);
  });
});
