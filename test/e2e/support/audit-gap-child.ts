/**
 * A process that dies between a write's `ToolExecuted` and its
 * `AuditRecorded`: it starts the runtime (with its audit-gap saga) on the
 * SQLite files in `STORE_DIR`, records a write without its audit, waits until
 * its saga has taken the write into its durable ledger, prints `READY
 * <runId> <stepId>`, and then waits to be killed.
 */
import { writeExecutedWithoutAudit } from '../../../libs/runtime/src/testing/crash-points';
import { eventually, startRuntime } from '../../../libs/runtime/src/testing/runtime-harness';

async function main(): Promise<void> {
  const storeDir = process.env.STORE_DIR as string;
  const sagaDir = process.env.SAGA_DIR as string;
  const rt = await startRuntime({
    store: 'sqlite',
    storeDir,
    sagaDir,
    agents: [{ name: 'appender', script: [{ toolCalls: [{ tool: 'test.append', arguments: { value: 'x' } }] }, { final: 'done' }] }],
    execution: { auditGapSaga: { gracePeriodMs: 30_000 } },
  });
  const { runId, stepId } = await writeExecutedWithoutAudit(rt, {
    agent: 'appender',
    runId: 'killed-mid-write',
    tool: { name: 'test.append', effect: 'NON_IDEMPOTENT_WRITE', operationDeadlineSeconds: 60 },
  });
  await eventually(() => (rt.saga.pendingCount() === 1 ? true : undefined), 20_000, 'the saga to see the write');
  process.stdout.write(`READY ${runId} ${stepId}\n`);
  setInterval(() => undefined, 60_000);
}

void main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
