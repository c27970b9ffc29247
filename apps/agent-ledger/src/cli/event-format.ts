/** Run events in one line each, for people. */
import type { Principal } from '@agent-ledger/domain';
import { decodeEvent, PRINCIPAL_KINDS, principalLabel } from '@agent-ledger/domain';

/** An event as the service streams it (the client's `StreamedEvent`; only `type`, `position` and `data` are needed here). */
export interface StreamedEventJson {
  readonly type: string;
  readonly streamName?: string;
  readonly revision?: number;
  readonly position: string;
  readonly data: unknown;
  readonly metadata?: unknown;
  readonly created?: string;
}

/** The events after which a run is settled. */
export const TERMINAL_EVENT_TYPES: ReadonlySet<string> = new Set(['RunCompleted', 'RunFailed', 'RunCancelled']);

/** The fields that name who made a decision: a principal, shown as its label (`requestedBy=key:ops`). */
const ACTOR_FIELDS: ReadonlySet<string> = new Set(['requestedBy', 'decidedBy', 'submittedBy', 'resolvedBy']);

/** How a line shows a tool's result. */
export interface ResultDisplay {
  /** The whole result (`--full`), not its first {@link RESULT_PREVIEW_CHARS} characters. @default false */
  readonly full?: boolean;
}

/** How many characters of a tool's result a line shows without `--full`. */
export const RESULT_PREVIEW_CHARS = 200;

/**
 * A tool's result as JSON text; past {@link RESULT_PREVIEW_CHARS} characters
 * cut, with a marker that says how long it is and how to see it all:
 * `{"path":"notes.txt","content":"These are…… (1234 chars; --full for all)`.
 */
export function resultText(result: unknown, display: ResultDisplay = {}): string {
  return previewText(JSON.stringify(result ?? null), display);
}

/** `text`, or its first {@link RESULT_PREVIEW_CHARS} characters and a marker saying how long it is and how to see it all. */
export function previewText(text: string, display: ResultDisplay = {}): string {
  if (display.full === true || text.length <= RESULT_PREVIEW_CHARS) return text;
  return `${text.slice(0, RESULT_PREVIEW_CHARS)}… (${text.length} chars; --full for all)`;
}

/**
 * `<position> <type> <summary>`: one line for people. The payload is read in
 * the current shape of its type (the service streams it so; an older one is
 * upcast here with the domain's codec). A tool's result is cut unless `display.full`.
 */
export function eventLine(event: StreamedEventJson, display: ResultDisplay = {}): string {
  const summary = summaryOf(event.type, isRecord(event.data) ? currentShape(event.type, event.metadata, event.data) : {}, display);
  return `${event.position} ${event.type}${summary === '' ? '' : ` ${summary}`}`;
}

/** The few fields of an event's payload that say what happened, as `name=value` pairs; a tool's result as {@link resultText}. */
export function summaryOf(type: string, data: Record<string, unknown>, display: ResultDisplay = {}): string {
  // A step id starts with its run's id: `step=r0/t1` says enough on a run's own stream.
  const prefix = typeof data.runId === 'string' ? `${data.runId}/` : undefined;
  const shortStep = (value: unknown) => (typeof value === 'string' && prefix !== undefined && value.startsWith(prefix) ? value.slice(prefix.length) : scalar(value));
  const show = (name: string) => {
    const value = data[name];
    if (name === 'stepId') return `step=${shortStep(value)}`;
    if (ACTOR_FIELDS.has(name) && isPrincipal(value)) return `${name}=${scalar(principalLabel(value))}`;
    return `${name === 'stepId' ? 'step' : name === 'toolName' ? 'tool' : name}=${scalar(value)}`;
  };
  const pairs = (...names: string[]) =>
    names
      .filter((name) => data[name] !== undefined && data[name] !== null)
      .map(show)
      .join(' ');
  switch (type) {
    case 'RunRequested':
      return [pairs('agent', 'mode'), `input=${clip(JSON.stringify(data.input ?? null), 60)}`, pairs('requestedBy')].filter((s) => s !== '').join(' ');
    case 'RunClaimed':
      return pairs('owner', 'attempt');
    case 'LeaseRenewed':
      return pairs('owner', 'attempt');
    case 'StepStarted':
      return data.kind === 'tool' ? pairs('stepId', 'toolName', 'effect') : pairs('stepId', 'kind');
    case 'ModelResponded': {
      const response = isRecord(data.response) ? data.response : {};
      if (response.type === 'final') return `${pairs('stepId')} final=${clip(JSON.stringify(response.content ?? ''), 80)}`;
      const calls = Array.isArray(response.calls) ? response.calls.map((c) => (isRecord(c) ? String(c.toolName) : '?')) : [];
      return `${pairs('stepId')} toolCalls=${calls.join(',')}`;
    }
    case 'ToolExecuted':
      return [pairs('stepId', 'toolName', 'outcome'), data.outcome === 'succeeded' ? `result=${resultText(data.result, display)}` : failure(data.error)].filter((s) => s !== '').join(' ');
    case 'RunRequeued':
      return [pairs('cause', 'requeues'), typeof data.notBefore === 'number' ? `notBefore=${new Date(data.notBefore).toISOString()}` : '', failure(data.failure)].filter((s) => s !== '').join(' ');
    case 'RunCompleted':
      return `answer=${clip(JSON.stringify(data.finalAnswer ?? ''), 80)}`;
    case 'RunFailed':
      return [pairs('reason', 'deadLettered'), failure(data.failure)].filter((s) => s !== '').join(' ');
    case 'CancelRequested':
      return pairs('requestedBy', 'reason');
    case 'RunCancelled':
      return [pairs('requestedBy'), isRecord(data.inFlightWrite) ? `inFlightWrite=${shortStep(data.inFlightWrite.stepId)}` : ''].filter((s) => s !== '').join(' ');
    case 'ApprovalRequested': {
      const calls = Array.isArray(data.calls) ? data.calls.filter(isRecord).map((c) => `${String(c.toolName)}(${String(c.effect)})`) : [];
      return `${pairs('round')} calls=${calls.join(',')} ${pairs('onDenial')}`;
    }
    case 'ToolCallPreApproved':
      return pairs('stepId', 'toolName', 'effect');
    case 'ToolEffectConflictRecorded':
      return pairs('stepId', 'toolName', 'effect', 'server', 'declared', 'hinted', 'trusted');
    case 'ApprovalGranted':
      return pairs('round', 'decidedBy', 'reason');
    case 'ApprovalDenied':
      return pairs('round', 'decidedBy', 'reason', 'onDenial');
    case 'InputRequested':
      return `${pairs('stepId', 'toolName')} prompt=${clip(JSON.stringify(data.prompt ?? ''), 80)}`;
    case 'InputSubmitted':
      return `${pairs('stepId', 'submittedBy')} input=${clip(JSON.stringify(data.input ?? null), 60)}`;
    case 'AuditGapDetected':
      return pairs('stepId', 'toolName', 'effect', 'runAlreadySettled');
    case 'RunRequeuedByOperator':
      return pairs('continuationRunId', 'requestedBy', 'reason');
    default:
      return clip(JSON.stringify(data), 100);
  }
}

function failure(value: unknown): string {
  if (!isRecord(value)) return '';
  const code = typeof value.code === 'string' ? `/${value.code}` : '';
  return `failure=${scalar(value.failureClass)}${code}: ${clip(String(value.message ?? ''), 80)}`;
}

function scalar(value: unknown): string {
  if (typeof value === 'string') return /\s/.test(value) || value === '' ? JSON.stringify(value) : value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return clip(JSON.stringify(value), 60);
}

/** Cuts a text to `max` characters, with an ellipsis. */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** The payload upcast to its type's current shape; one this version cannot read (a newer version's) is shown as it came. */
function currentShape(type: string, metadata: unknown, data: Record<string, unknown>): Record<string, unknown> {
  try {
    const decoded = decodeEvent({ type, data, metadata });
    return decoded === null ? data : { ...decoded.data };
  } catch {
    // A line for people: the raw payload says more than no line at all.
    return data;
  }
}

function isPrincipal(value: unknown): value is Principal {
  return isRecord(value) && (PRINCIPAL_KINDS as readonly unknown[]).includes(value.kind);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
