import type { AuditWriteView as AuditWrite } from '@agent-ledger/client';

/** The columns of the CSV export, in order. */
export const AUDIT_CSV_COLUMNS = [
  'stepId',
  'runId',
  'runStartedBy',
  'toolName',
  'effect',
  'executedAt',
  'outcome',
  'audited',
  'auditSequence',
  'gapDetectedAt',
  'gapDetectedBy',
  'failedRunReason',
] as const;

const TIME_COLUMNS = new Set<string>(['executedAt', 'gapDetectedAt']);

/**
 * The audit review's writes as CSV (RFC 4180: CRLF line ends, fields quoted
 * when they hold a comma, quote or line break). Times are ISO 8601. A text
 * cell that a spreadsheet would read as a formula (`=`, `+`, `-`, `@`, tab,
 * CR) gets a leading `'`, since tool names and run ids come from users.
 */
export function auditWritesCsv(writes: readonly AuditWrite[]): string {
  const lines = [AUDIT_CSV_COLUMNS.join(',')];
  for (const write of writes) {
    lines.push(AUDIT_CSV_COLUMNS.map((column) => csvField(cellOf(column, write[column]))).join(','));
  }
  return `${lines.join('\r\n')}\r\n`;
}

function cellOf(column: string, value: unknown): string {
  if (value === null || value === undefined) return '';
  if (TIME_COLUMNS.has(column) && typeof value === 'number') return new Date(value).toISOString();
  if (typeof value === 'string') return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return String(value);
}

function csvField(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
