import type { StreamedEvent, ToolEffect } from '@agent-ledger/client';

/** How an entry reads at a glance. */
export type Tone = 'neutral' | 'good' | 'warn' | 'bad';

/** One line of a run's timeline. */
export interface TimelineEntry {
  /** The event's type (or `AuditRecorded` for a step's stored audit, which lives in the audit stream). */
  readonly type: string;
  /** Unique within the timeline. */
  readonly key: string;
  readonly title: string;
  readonly detail: string;
  readonly effect: ToolEffect | null;
  readonly stepId: string | null;
  readonly tone: Tone;
  /** ISO 8601: when the store recorded it. */
  readonly at: string;
}

type Data = Record<string, unknown>;

const text = (value: unknown): string => (typeof value === 'string' ? value : value === null || value === undefined ? '' : JSON.stringify(value));
/**
 * Who made a decision, from its principal (`{ kind, id }`): `key:<id>`,
 * `development`, `bus:<id>`, `unverified:<name>` (the service's labels, as
 * the read models show them; docs/events.md).
 */
export function principalText(value: unknown): string {
  if (typeof value !== 'object' || value === null) return text(value);
  const { kind, id, name } = value as { kind?: unknown; id?: unknown; name?: unknown };
  if (kind === 'apiKey') return `key:${text(id)}`;
  if (kind === 'development') return 'development';
  if (kind === 'bus') return `bus:${text(id)}`;
  if (kind === 'unverified') return `unverified:${text(name)}`;
  return text(value);
}
const time = (value: unknown): string => (typeof value === 'number' ? new Date(value).toISOString() : '');
const failureOf = (data: Data): string => {
  const failure = data.failure as { failureClass?: unknown; code?: unknown; message?: unknown } | undefined;
  if (failure === undefined || failure === null) return '';
  return `${text(failure.failureClass)}${failure.code === undefined ? '' : ` / ${text(failure.code)}`}: ${text(failure.message)}`;
};
const inFlight = (data: Data): string => {
  const write = data.inFlightWrite as { stepId?: unknown; toolName?: unknown; effect?: unknown } | null | undefined;
  return write === null || write === undefined ? '' : `; write in flight: ${text(write.toolName)} (${text(write.effect)}) at ${text(write.stepId)}`;
};

/**
 * A run event as a line of the timeline: what happened, in words, with the
 * step's declared effect where it has one, and a tone (a failure is bad, a
 * retry or a lost lease is a warning). Unknown types are shown as they are.
 */
export function timelineEntryOf(event: StreamedEvent): TimelineEntry {
  const data: Data = typeof event.data === 'object' && event.data !== null && !Array.isArray(event.data) ? (event.data as Data) : {};
  const base = { type: event.type, key: event.position, at: event.created, effect: null, stepId: null, tone: 'neutral' as Tone };
  switch (event.type) {
    case 'RunRequested':
      return { ...base, title: `Requested (${text(data.mode)}) by ${principalText(data.requestedBy)}`, detail: `agent ${text(data.agent)}, input ${text(data.input)}` };
    case 'RunClaimed':
      return { ...base, title: `Claimed by ${text(data.owner)}`, detail: `attempt ${text(data.attempt)}, lease until ${time(data.leaseExpiresAt)}` };
    case 'LeaseRenewed':
      return { ...base, title: 'Lease renewed', detail: `${text(data.owner)}, until ${time(data.leaseExpiresAt)}` };
    case 'StepStarted':
      return {
        ...base,
        stepId: text(data.stepId),
        effect: (data.effect as ToolEffect | null) ?? null,
        title: data.kind === 'llm' || data.toolName === null ? 'Model call started' : `Tool ${text(data.toolName)} started`,
        detail: `${text(data.stepId)}${data.idempotencyKey === null || data.idempotencyKey === undefined ? '' : `, key ${text(data.idempotencyKey)}`}`,
      };
    case 'ModelResponded': {
      const response = data.response as { type?: string; content?: unknown; calls?: { toolName?: unknown }[] } | undefined;
      const detail = response?.type === 'final' ? `final answer: ${text(response.content)}` : `asks for ${(response?.calls ?? []).map((c) => text(c.toolName)).join(', ')}`;
      return { ...base, stepId: text(data.stepId), title: 'Model responded', detail };
    }
    case 'ToolExecuted':
      return {
        ...base,
        stepId: text(data.stepId),
        effect: (data.effect as ToolEffect) ?? null,
        tone: data.outcome === 'succeeded' ? 'good' : 'bad',
        title: `Tool ${text(data.toolName)} ${text(data.outcome)}`,
        detail: data.outcome === 'succeeded' ? `result ${text(data.result)}` : failureOf({ failure: data.error }),
      };
    case 'ToolCallPreApproved':
      return { ...base, stepId: text(data.stepId), effect: (data.effect as ToolEffect) ?? null, title: `${text(data.toolName)} pre-approved`, detail: `by agent ${text(data.agent)}'s configuration` };
    case 'ToolEffectConflictRecorded':
      return {
        ...base,
        tone: 'warn',
        stepId: text(data.stepId),
        effect: (data.effect as ToolEffect) ?? null,
        title: `${text(data.toolName)}: its effect's declaration and hints conflict`,
        detail: `MCP server ${text(data.server)}: declared ${text(data.declared)}, hints ${text(data.hinted)} (${data.trusted === true ? 'trusted' : 'untrusted'}); runs as ${text(data.effect)}`,
      };
    case 'ApprovalRequested': {
      const calls = (data.calls as { toolName?: unknown; effect?: unknown }[] | undefined) ?? [];
      return { ...base, tone: 'warn', title: `Waits for approval (round ${text(data.round)})`, detail: calls.map((c) => `${text(c.toolName)} (${text(c.effect)})`).join(', ') };
    }
    case 'ApprovalGranted':
      return { ...base, tone: 'good', title: `Approved by ${principalText(data.decidedBy)}`, detail: text(data.reason) };
    case 'ApprovalDenied':
      return { ...base, tone: 'bad', title: `Denied by ${principalText(data.decidedBy)}`, detail: `${text(data.reason)} (on denial: ${text(data.onDenial)})` };
    case 'InputRequested':
      return { ...base, tone: 'warn', stepId: text(data.stepId), title: 'Waits for input', detail: text(data.prompt) };
    case 'InputSubmitted':
      return { ...base, stepId: text(data.stepId), title: `Input from ${principalText(data.submittedBy)}`, detail: text(data.input) };
    case 'RunRequeued':
      return { ...base, tone: 'warn', title: `Requeued (${text(data.cause)}, retry ${text(data.requeues)})`, detail: `${failureOf(data)}; not before ${time(data.notBefore)}${inFlight(data)}` };
    case 'RunRequeuedByOperator':
      return { ...base, tone: 'warn', title: `Requeued by ${principalText(data.requestedBy)} as ${text(data.continuationRunId)}`, detail: `${text(data.reason)}${inFlight(data)}` };
    case 'CancelRequested':
      return { ...base, tone: 'warn', title: `Cancel requested by ${principalText(data.requestedBy)}`, detail: text(data.reason) };
    case 'RunCompleted':
      return { ...base, tone: 'good', title: 'Completed', detail: text(data.finalAnswer) };
    case 'RunFailed':
      return { ...base, tone: 'bad', title: `Failed: ${text(data.reason)}${data.deadLettered === true ? ' (dead-lettered)' : ''}`, detail: `${failureOf(data)}${inFlight(data)}` };
    case 'RunCancelled':
      return { ...base, tone: 'warn', title: `Cancelled by ${principalText(data.requestedBy)}`, detail: inFlight(data).replace(/^; /, '') };
    case 'AuditGapDetected':
      return {
        ...base,
        tone: 'bad',
        stepId: text(data.stepId),
        effect: (data.effect as ToolEffect) ?? null,
        title: `Audit gap: ${text(data.toolName)} has no audit`,
        detail: `detected by ${text(data.detectedBy)}${data.runAlreadySettled === true ? ' (the run was already settled)' : ''}`,
      };
    default:
      return { ...base, title: event.type, detail: JSON.stringify(data) };
  }
}
