import type { ApprovalCall, RunCancelled, RunCompleted, RunFailed } from '@agent-ledger/domain';
import { principalLabel } from '@agent-ledger/domain';
import type { ProjectionDefinition } from '../core/projection-definition';
import { isAuditSideEvent } from '../core/projected-event';
import { ProjectionName } from '../core/projection-name';
import type { StoredApprovalRow } from './approval-rows';
import { APPROVAL_RUNS_TABLE, APPROVALS_TABLE, approvalIdOf } from './approval-rows';

/**
 * The approvals read model: one row per request for approval (`approvals`,
 * keyed by run and round), from `pending` to `approved`, `denied` or
 * `cancelled` (the run settled while it waited). Fed by the run streams only
 * (the audit trail's copy of a decision does not change it); the run's agent
 * comes from its `RunRequested` (`approval_runs`). Events of a run never
 * requested are ignored.
 */
export const approvalsProjection: ProjectionDefinition = {
  name: ProjectionName.APPROVALS,
  tables: [APPROVALS_TABLE, APPROVAL_RUNS_TABLE],
  eventTypes: new Set(['RunRequested', 'ApprovalRequested', 'ApprovalGranted', 'ApprovalDenied', 'RunCompleted', 'RunFailed', 'RunCancelled']),
  apply(event, rows) {
    if (isAuditSideEvent(event)) return;
    const runId = event.data.runId;
    if (event.type === 'RunRequested') {
      if (rows.get(APPROVAL_RUNS_TABLE, runId) === undefined) rows.put(APPROVAL_RUNS_TABLE, { runId, agent: event.data.agent, pendingApprovalId: null });
      return;
    }
    const run = rows.get(APPROVAL_RUNS_TABLE, runId);
    if (run === undefined) return;
    switch (event.type) {
      case 'ApprovalRequested': {
        const { round, calls, onDenial, requestedAt } = event.data;
        const approvalId = approvalIdOf(runId, round);
        rows.put(APPROVALS_TABLE, {
          approvalId,
          runId,
          agent: run.agent,
          round,
          calls: JSON.stringify(calls.map(callOf)),
          onDenial,
          requestedAt,
          state: 'pending',
          decidedBy: null,
          reason: null,
          decidedAt: null,
        });
        rows.put(APPROVAL_RUNS_TABLE, { ...run, pendingApprovalId: approvalId });
        return;
      }
      case 'ApprovalGranted':
      case 'ApprovalDenied': {
        const { round, decidedBy, reason, decidedAt } = event.data;
        const approvalId = approvalIdOf(runId, round);
        const row = rows.get(APPROVALS_TABLE, approvalId);
        if (row !== undefined) {
          rows.put(APPROVALS_TABLE, { ...row, state: event.type === 'ApprovalGranted' ? 'approved' : 'denied', decidedBy: principalLabel(decidedBy), reason, decidedAt });
        }
        if (run.pendingApprovalId === approvalId) rows.put(APPROVAL_RUNS_TABLE, { ...run, pendingApprovalId: null });
        return;
      }
      case 'RunCompleted':
      case 'RunFailed':
      case 'RunCancelled': {
        if (run.pendingApprovalId === null) return;
        const row = rows.get(APPROVALS_TABLE, run.pendingApprovalId);
        if (row !== undefined && row.state === 'pending') rows.put(APPROVALS_TABLE, closedBySettlement(row, event));
        rows.put(APPROVAL_RUNS_TABLE, { ...run, pendingApprovalId: null });
        return;
      }
      default:
        return;
    }
  },
};

/** A call with its fields in a fixed order, so that the stored JSON is the same whichever store the event came from. */
function callOf(call: ApprovalCall): ApprovalCall {
  const { stepId, callIndex, toolName, effect, arguments: args, requirement } = call;
  return { stepId, callIndex, toolName, effect, arguments: args, requirement };
}

/**
 * A pending request whose run settled before anyone decided: `cancelled`,
 * with who cancelled (null for another settlement), the run's termination
 * reason and the settlement's time.
 */
function closedBySettlement(row: StoredApprovalRow, event: RunCompleted | RunFailed | RunCancelled): StoredApprovalRow {
  switch (event.type) {
    case 'RunCancelled':
      return { ...row, state: 'cancelled', decidedBy: principalLabel(event.data.requestedBy), reason: event.data.reason, decidedAt: event.data.cancelledAt };
    case 'RunFailed':
      return { ...row, state: 'cancelled', decidedBy: null, reason: event.data.reason, decidedAt: event.data.failedAt };
    case 'RunCompleted':
      return { ...row, state: 'cancelled', decidedBy: null, reason: event.data.reason, decidedAt: event.data.completedAt };
  }
}
