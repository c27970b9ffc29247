import { StreamCategory } from '@agent-ledger/domain';
import { streamName } from '@agent-ledger/event-store';

/** The stream of a run's lifecycle and steps: `run-<runId>`. */
export function runStreamName(runId: string): string {
  return streamName(StreamCategory.RUN, runId);
}

/** The stream of a run's audit trail: `audit-<runId>`. */
export function auditStreamName(runId: string): string {
  return streamName(StreamCategory.AUDIT, runId);
}
