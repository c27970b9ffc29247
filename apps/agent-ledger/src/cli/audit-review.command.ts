import type { AuditReviewReport } from '@agent-ledger/projections';
import { ProjectionQueries, ProjectionRunner } from '@agent-ledger/projections';
import type { AuditStoreVerdict, AuditStoreVerification } from '@agent-ledger/runtime';
import { reviewAuditStores } from '@agent-ledger/runtime';
import type { ServiceConfig } from '../config/service-config';
import type { CliOutput } from './cli-output';
import { ExitCode, table } from './cli-output';
import { readModelSources } from '@agent-ledger/module';
import { openReadModels } from '../config/read-models';
import { checkStoreIdentities } from '../config/store-identity-check';
import { openStores } from '../config/open-stores';
import { printVerdict } from './audit-verdict-output';
import type { StoresRead } from './stores-read';
import { announceStores, storesRead } from './stores-read';

/** The audit review as the command reports it. */
export interface AuditReviewOutput {
  /** The stores reviewed (and the configuration they came from). */
  readonly stores: StoresRead;
  /** The audit-review read model's report (the figures and lists of the dashboard). */
  readonly review: AuditReviewReport;
  /** The chains' part of the verdict. */
  readonly chains: AuditStoreVerification;
  /** The integrity verdict, read from the stores. */
  readonly verdict: AuditStoreVerdict;
  /**
   * Whether something needs a person (the exit code): a finding of the verdict
   * (a broken chain, an executed write without its audit that the contract
   * does not allow, audits of unknown runs), or an executed write without its
   * audit record that the contract allows (its run failed closed, or was
   * cancelled naming it): the runtime kept its promise, but what that write
   * did is recorded only by its tool.
   */
  readonly findings: boolean;
}

/**
 * `agent-ledger audit review [--json] [--config FILE]`: says which stores it
 * reads (its first line), brings the audit-review read model up
 * to date and prints its totals and lists (writes without audit, gaps, runs
 * failed closed, interrupted writes), then the integrity verdict read from
 * the stores (every audit chain verified end to end, every executed write of
 * the run store matched to its `AuditRecorded` in the audit store). The exit
 * code comes from the stores, never the read model: exit 1 (for scheduled
 * jobs) on a finding of the verdict, or on any executed write without its
 * audit record, even one the contract allows.
 */
export async function auditReview(config: ServiceConfig, options: { json: boolean; cwd?: string }, output: CliOutput): Promise<ExitCode> {
  const stores = openStores(config);
  const readModels = openReadModels(config);
  try {
    const read = await storesRead(config, stores, options.cwd ?? process.cwd());
    announceStores(read, 'audit review', output, options.json);
    // Read models made from another store would be caught up from the wrong checkpoints: refused (or rebuilt) as at start-up.
    const refusal = await checkStoreIdentities(config, stores, { readModels: true, saga: false, log: (message) => output.err(message) });
    if (refusal !== null) {
      output.err(`agent-ledger: ${refusal}`);
      return ExitCode.FAILURE;
    }
    const sources = readModelSources(stores.runStore, stores.auditStore);
    for (const source of sources) await new ProjectionRunner(readModels, source).catchUp();
    const review = new ProjectionQueries(readModels, sources).auditReview();
    const verdict = await reviewAuditStores(stores);
    const chains: AuditStoreVerification = { runs: verdict.runs, records: verdict.records, brokenRuns: verdict.brokenRuns, breaks: verdict.breaks };
    const findings = verdict.findings || verdict.totals.writesWithoutAudit > 0;
    if (options.json) {
      output.out(JSON.stringify({ stores: read, review, chains, verdict, findings } satisfies AuditReviewOutput, null, 2));
    } else {
      printReport(review, verdict, output);
    }
    return findings ? ExitCode.FINDINGS : ExitCode.OK;
  } finally {
    readModels.close();
    await stores.close();
  }
}

function printReport(review: AuditReviewReport, verdict: AuditStoreVerdict, output: CliOutput): void {
  const t = review.totals;
  output.out('Audit review (read model)');
  for (const line of table(
    ['measure', 'count'],
    [
      ['writes executed', String(t.writesExecuted)],
      ['writes audited', String(t.writesAudited)],
      ['writes audited late', String(t.auditedLate)],
      ['writes without audit', String(t.writesWithoutAudit)],
      ['gaps detected', String(t.gapsDetected)],
      ['runs failed closed (AUDIT_PERSISTENCE_FAILED)', String(t.runsFailedClosed)],
      ['runs failed AUDIT_MISSING', String(t.runsFailedAuditMissing)],
      ['writes interrupted in flight', String(t.interruptedWrites)],
      ['approvals granted (by a person)', String(t.approvalsGranted)],
      ['approvals denied', String(t.approvalsDenied)],
      ['audit chains checked', `${verdict.runs} (${verdict.records} records)`],
      ['broken chains', String(verdict.brokenRuns.length)],
    ],
  )) {
    output.out(line);
  }
  section(output, 'Writes without audit', ['run', 'step', 'tool', 'effect'], review.writesWithoutAudit.map((w) => [w.runId, w.stepId, w.toolName ?? '-', w.effect ?? '-']));
  section(output, 'Gaps detected', ['run', 'step', 'tool', 'run already settled'], review.gaps.map((w) => [w.runId, w.stepId, w.toolName ?? '-', String(w.gapRunAlreadySettled ?? '-')]));
  section(output, 'Runs failed closed', ['run', 'reason', 'step in flight'], review.runsFailedClosed.map((r) => [r.runId, r.reason, r.inFlightStepId ?? '-']));
  section(output, 'Writes interrupted in flight', ['run', 'step', 'tool', 'effect', 'outcome'], review.interruptedWrites.map((w) => [w.runId, w.stepId, w.toolName, w.effect, w.eventType]));
  output.out('');
  output.out(`Verdict (from the stores): ${verdict.findings ? 'FINDINGS' : 'no finding'}`);
  printVerdict(verdict, output);
}

function section(output: CliOutput, title: string, headers: string[], rows: string[][]): void {
  if (rows.length === 0) return;
  output.out('');
  output.out(`${title} (${rows.length})`);
  for (const line of table(headers, rows)) output.out(line);
}
