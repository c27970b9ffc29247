import type { AuditStoreVerdict } from '@agent-ledger/runtime';
import type { CliOutput } from './cli-output';
import { table } from './cli-output';

/**
 * Prints a store verdict: the chains' summary line first, then the writes'
 * counts, the problems found, and the lists that are not empty.
 */
export function printVerdict(verdict: AuditStoreVerdict, output: CliOutput): void {
  const t = verdict.totals;
  output.out(`Audit chains: ${verdict.runs} runs, ${verdict.records} records, ${verdict.brokenRuns.length} broken`);
  output.out(
    `Writes in the run store: ${t.writesExecuted} executed, ${t.writesAudited} audited in the audit store (${t.auditedLate} audited late), ${t.writesWithoutAudit} without audit (${t.writesWithoutAuditNotAllowed} that the contract does not allow), ${t.writesAwaitingAudit} awaiting audit`,
  );
  for (const problem of verdict.problems) output.out(`Finding: ${problem}`);
  section(output, 'Broken chains', ['run', 'record', 'step', 'problem'], verdict.breaks.map((b) => [b.runId, String(b.index), b.stepId ?? '-', b.problem]));
  section(
    output,
    'Writes without audit in the store',
    ['run', 'step', 'tool', 'effect', 'run ended', 'allowed by'],
    verdict.writesWithoutAudit.map((w) => [w.runId, w.stepId, w.toolName, w.effect, w.runEnd, w.allowedBy ?? '-']),
    t.writesWithoutAudit,
  );
  section(
    output,
    'Audited late',
    ['run', 'step', 'tool', 'effect', 'executed by attempt', 'audited by attempt'],
    verdict.auditedLate.map((w) => [w.runId, w.stepId, w.toolName, w.effect, String(w.executedAttempt), String(w.auditAttempt)]),
    t.auditedLate,
  );
  section(output, 'Audited runs the run store does not know', ['run'], verdict.auditedRunsUnknownToRunStore.map((r) => [r]), t.auditedRunsUnknownToRunStore);
}

function section(output: CliOutput, title: string, headers: string[], rows: string[][], total = rows.length): void {
  if (rows.length === 0) return;
  output.out('');
  output.out(`${title} (${total}${total > rows.length ? `, first ${rows.length} listed` : ''})`);
  for (const line of table(headers, rows)) output.out(line);
}
