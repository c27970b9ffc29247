import type { AuditReviewReport } from '@agent-ledger/projections';
import { ProjectionQueries, ProjectionRunner } from '@agent-ledger/projections';
import type { AuditStoreVerification } from '@agent-ledger/runtime';
import { verifyAuditStore } from '@agent-ledger/runtime';
import type { ServiceConfig } from '../config/service-config';
import type { CliOutput } from './cli-output';
import { ExitCode, table } from './cli-output';
import { openReadModels, projectionSources } from '../config/read-models';
import { openStores } from '../config/open-stores';

/** The audit review as the command reports it. */
export interface AuditReviewOutput {
  readonly review: AuditReviewReport;
  readonly chains: AuditStoreVerification;
  /** Whether something needs a person: a write without audit, a gap, or a broken chain. */
  readonly findings: boolean;
}

/**
 * `agent-ledger audit review [--json]`: brings the audit-review read model up
 * to date, verifies every audit chain, and prints totals, writes without
 * audit, gaps detected, broken chains and runs failed closed. Exit 1 when it
 * finds a write without audit, a gap or a broken chain (for scheduled jobs).
 */
export async function auditReview(config: ServiceConfig, options: { json: boolean }, output: CliOutput): Promise<ExitCode> {
  const stores = openStores(config);
  const readModels = openReadModels(config);
  try {
    const sources = projectionSources(stores);
    for (const source of sources) await new ProjectionRunner(readModels, source).catchUp();
    const review = new ProjectionQueries(readModels, sources).auditReview();
    const chains = await verifyAuditStore(stores.auditStore);
    const findings = review.totals.writesWithoutAudit > 0 || review.totals.gapsDetected > 0 || chains.breaks.length > 0;
    if (options.json) {
      output.out(JSON.stringify({ review, chains, findings } satisfies AuditReviewOutput, null, 2));
    } else {
      printReport(review, chains, output);
    }
    return findings ? ExitCode.FINDINGS : ExitCode.OK;
  } finally {
    readModels.close();
    await stores.close();
  }
}

function printReport(review: AuditReviewReport, chains: AuditStoreVerification, output: CliOutput): void {
  const t = review.totals;
  output.out('Audit review');
  for (const line of table(
    ['measure', 'count'],
    [
      ['writes executed', String(t.writesExecuted)],
      ['writes audited', String(t.writesAudited)],
      ['writes without audit', String(t.writesWithoutAudit)],
      ['gaps detected', String(t.gapsDetected)],
      ['runs failed closed (AUDIT_PERSISTENCE_FAILED)', String(t.runsFailedClosed)],
      ['runs failed AUDIT_MISSING', String(t.runsFailedAuditMissing)],
      ['writes interrupted in flight', String(t.interruptedWrites)],
      ['approvals granted (by a person)', String(t.approvalsGranted)],
      ['approvals denied', String(t.approvalsDenied)],
      ['audit chains checked', `${chains.runs} (${chains.records} records)`],
      ['broken chains', String(chains.brokenRuns.length)],
    ],
  )) {
    output.out(line);
  }
  section(output, 'Writes without audit', ['run', 'step', 'tool', 'effect'], review.writesWithoutAudit.map((w) => [w.runId, w.stepId, w.toolName ?? '-', w.effect ?? '-']));
  section(output, 'Gaps detected', ['run', 'step', 'tool', 'run already settled'], review.gaps.map((w) => [w.runId, w.stepId, w.toolName ?? '-', String(w.gapRunAlreadySettled ?? '-')]));
  section(output, 'Broken chains', ['run', 'record', 'step', 'problem'], chains.breaks.map((b) => [b.runId, String(b.index), b.stepId ?? '-', b.problem]));
  section(output, 'Runs failed closed', ['run', 'reason', 'step in flight'], review.runsFailedClosed.map((r) => [r.runId, r.reason, r.inFlightStepId ?? '-']));
  section(output, 'Writes interrupted in flight', ['run', 'step', 'tool', 'effect', 'outcome'], review.interruptedWrites.map((w) => [w.runId, w.stepId, w.toolName, w.effect, w.eventType]));
}

function section(output: CliOutput, title: string, headers: string[], rows: string[][]): void {
  if (rows.length === 0) return;
  output.out('');
  output.out(`${title} (${rows.length})`);
  for (const line of table(headers, rows)) output.out(line);
}
