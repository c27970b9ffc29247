import type { AuditStoreVerdict as AuditVerdict } from '@agent-ledger/client';

/**
 * The one line the audit page shows for a store verdict: "no finding" with
 * what was checked, or the findings in the verdict's own words.
 */
export function verdictSummary(verdict: AuditVerdict): string {
  const checked = `${plural(verdict.runs, 'chain')} (${plural(verdict.records, 'record')}), ${plural(verdict.totals['writesExecuted'] ?? 0, 'write')} matched to the audit store`;
  if (!verdict.findings) return `No finding: ${checked}.`;
  return `Findings: ${verdict.problems.join('; ')}.`;
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
