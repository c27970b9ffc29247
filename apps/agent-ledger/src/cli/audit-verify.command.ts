import { reviewAuditStores } from '@agent-ledger/runtime/audit-review';
import type { ServiceConfig } from '../config/service-config';
import type { CliOutput } from './cli-output';
import { ExitCode } from './cli-output';
import { openStores } from '../config/open-stores';
import { printVerdict } from './audit-verdict-output';
import { announceStores, storesRead } from './stores-read';

/**
 * `agent-ledger audit verify [--json] [--config FILE]`: which stores it reads
 * (its first line; `stores` with `--json`), then the audit's integrity
 * verdict, read from the stores: verifies the hash chain of every run's audit stream, and
 * matches every executed write of the run store to its `AuditRecorded` in the
 * audit store. Exit 1 on a finding: a broken chain, an executed write without
 * its audit (a deleted tail, or another audit store), audits of runs the run
 * store does not know.
 */
export async function auditVerify(config: ServiceConfig, options: { json: boolean; cwd?: string }, output: CliOutput): Promise<ExitCode> {
  const stores = openStores(config);
  try {
    const read = await storesRead(config, stores, options.cwd ?? process.cwd());
    announceStores(read, 'audit verify', output, options.json);
    const verdict = await reviewAuditStores(stores);
    if (options.json) {
      output.out(JSON.stringify({ stores: read, ...verdict }, null, 2));
    } else {
      printVerdict(verdict, output);
    }
    return verdict.findings ? ExitCode.FINDINGS : ExitCode.OK;
  } finally {
    await stores.close();
  }
}
