/**
 * The attributes of the runtime's spans (`agent_ledger.*`), documented in
 * docs/operations.md ("Traces").
 */
export const SpanAttribute = {
  RUN_ID: 'agent_ledger.run.id',
  AGENT: 'agent_ledger.agent',
  /** The segment's attempt (its lease's): 1 for a run's first claim, one more at each retry. */
  ATTEMPT: 'agent_ledger.attempt',
  SEGMENT_OWNER: 'agent_ledger.segment.owner',
  /** How the segment ended: settled, requeued, waiting, leaseLost, abandoned. */
  SEGMENT_OUTCOME: 'agent_ledger.segment.outcome',
  ROUND: 'agent_ledger.round',
  STEP_ID: 'agent_ledger.step.id',
  /** Whether a model round or a tool call was recorded by an earlier segment and reused (never called again). */
  REUSED: 'agent_ledger.step.reused',
  TOOL_NAME: 'agent_ledger.tool.name',
  TOOL_EFFECT: 'agent_ledger.tool.effect',
  IDEMPOTENCY_KEY: 'agent_ledger.tool.idempotency_key',
  /** succeeded or failed (a refused or invalid call fails). */
  TOOL_OUTCOME: 'agent_ledger.tool.outcome',
  /** stored, failed (fail-closed or fail-soft), or none (no audit record: a read-only step). */
  AUDIT_OUTCOME: 'agent_ledger.audit.outcome',
} as const;
