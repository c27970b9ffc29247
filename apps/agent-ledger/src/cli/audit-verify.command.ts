import { verifyAuditStore } from '@agent-ledger/runtime';
import type { ServiceConfig } from '../config/service-config';
import type { CliOutput } from './cli-output';
import { ExitCode, table } from './cli-output';
import { openStores } from '../config/open-stores';

/**
 * `agent-ledger audit verify [--json]`: verifies the hash chain of every
 * run's audit stream. Exit 1 when a chain is broken.
 */
export async function auditVerify(config: ServiceConfig, options: { json: boolean }, output: CliOutput): Promise<ExitCode> {
  const stores = openStores(config);
  try {
    const result = await verifyAuditStore(stores.auditStore);
    if (options.json) {
      output.out(JSON.stringify(result, null, 2));
    } else {
      output.out(`Audit chains: ${result.runs} runs, ${result.records} records, ${result.brokenRuns.length} broken`);
      if (result.breaks.length > 0) {
        for (const line of table(['run', 'record', 'step', 'problem'], result.breaks.map((b) => [b.runId, String(b.index), b.stepId ?? '-', b.problem]))) output.out(line);
      }
    }
    return result.brokenRuns.length > 0 ? ExitCode.FINDINGS : ExitCode.OK;
  } finally {
    await stores.close();
  }
}
