import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Span, SpanContext } from '@opentelemetry/api';
import { context, SpanKind, trace } from '@opentelemetry/api';
import type {
  ApprovalCallRequest,
  DecisionStatement,
  FailureInfo,
  JsonValue,
  ModelResponse,
  RunCommand,
  RunState,
  SegmentLease,
  StepRecord,
  TerminationReason,
  ToolCallRequest,
} from '@agent-ledger/domain';
import { AuditPersistenceFailedException, classifyFailure, isWrite, statementKey, stepAuditEntry, stepIdFor, ToolEffect } from '@agent-ledger/domain';
import { isEventStoreError } from '@agent-ledger/event-store';
import type { CrashPointContext } from '@agent-ledger/crash-points';
import { CrashPoint, crashPoint } from '@agent-ledger/crash-points';
import type { Clock } from '../clock/clock';
import { CLOCK } from '../clock/clock';
import { deadlineSignal } from '../clock/deadline-signal';
import { approvalsOf } from '../agents/agent-definition';
import { UserInputRequired } from '../tools/user-input-required';
import { stepEffectConflict } from '../tools/step-effect-conflict';
import type { AgentCatalog, CatalogAgent } from './agent-catalog';
import { AGENT_CATALOG } from './agent-catalog';
import type { AuditEntry, StatementRecording } from '../persistence/audit-recorder';
import { AuditRecorder } from '../persistence/audit-recorder';
import { QueueIndex } from '../queue/queue-index';
import { buildConversation } from './conversation-builder';
import type { RunCommandOutcome, RunSnapshot } from '../persistence/run-command-processor';
import { RunCommandProcessor } from '../persistence/run-command-processor';
import type { DecidedRunCommand } from '../persistence/step-appender';
import { StepAppender } from '../persistence/step-appender';
import { RuntimeMetrics } from '../metrics/runtime-metrics';
import type { ToolCatalog } from './tool-catalog';
import { TOOL_CATALOG } from './tool-catalog';
import { SpanAttribute } from '../tracing/span-attributes';
import { contextWithParent, recordSpanError, recordSpanFailure, traceContextOfSpan, TRACER_NAME } from '../tracing/trace-context';

/** How a segment ended. */
export type SegmentOutcome =
  /** The run is settled (completed, failed or cancelled); `state` is its final state. */
  | { readonly kind: 'settled'; readonly state: RunState }
  /** The run went back to the queue (a retryable failure). */
  | { readonly kind: 'requeued'; readonly state: RunState }
  /** The run waits for a person (`WAITING_FOR_APPROVAL` or `WAITING_FOR_INPUT`); the segment gave up its lease. */
  | { readonly kind: 'waiting'; readonly state: RunState }
  /** The segment lost its lease: it stopped without settling and recorded nothing more. */
  | { readonly kind: 'leaseLost' }
  /** The store failed and not even the failure could be recorded: the reaper will take the run back. */
  | { readonly kind: 'abandoned'; readonly error: unknown };

/** The reason of a segment's abort signal when its run is cancelled. */
export class RunCancelledSignal extends Error {
  constructor() {
    super('The run was cancelled');
    this.name = 'RunCancelledSignal';
  }
}

/** The reason of a segment's abort signal when it lost its lease. */
export class LeaseLostSignal extends Error {
  constructor() {
    super('The segment lost its lease');
    this.name = 'LeaseLostSignal';
  }
}

/**
 * How much of the lease a step's start would give the stored lease must still
 * cover for the start to wait for the step's result (one append after the
 * call): a start that would extend it by more than a tenth is stored first.
 */
const STORED_LEASE_COVERS = 0.9;

/** A step's start: sent, or decided and waiting to be stored with the step's result ({@link Segment}). */
interface PendingStart {
  /** The run's state with the step started. */
  readonly state: RunState;
  /** The decided start while it is still to be stored; null once stored, or when it was sent. */
  readonly waiting: DecidedRunCommand | null;
  /** Stores a start that waits, once (nothing when it was sent). */
  store(): Promise<void>;
}

/** Thrown inside a segment to stop it with an outcome. */
class SegmentStop {
  constructor(readonly outcome: SegmentOutcome) {}
}

/**
 * Executes one segment of a claimed run: model rounds and tool calls, each
 * between recorded events, until the run settles, goes back to the queue, or
 * the segment loses its lease.
 *
 * - Steps that already completed (in an earlier segment) are never executed
 *   again: their recorded responses and results are reused.
 * - A write runs only after its fence (`StepStarted` with the in-flight record
 *   and a lease covering its deadline) was appended under this segment's lease.
 * - After a tool call: `ToolExecuted`, then `AuditRecorded` on the audit
 *   stream. A write whose audit did not persist fails the run closed
 *   (`AUDIT_PERSISTENCE_FAILED`); for anything else the run goes on. Where
 *   the store takes a step's records in one commit ({@link StepAppender}),
 *   a read's `StepStarted`, `ToolExecuted` and audit are one append after
 *   the read; a write's `ToolExecuted` and audit one append after the write
 *   (its fence before it, as everywhere), and a model call's response and
 *   audit one append after the call (its start before it); a refused
 *   or failed one-commit append is followed by the records one after the
 *   other, as where the store cannot take them together.
 * - Before any call of a round executes, the calls that need a person's
 *   approval (a write the agent does not pre-approve, or a tool whose code
 *   asks for it) are recorded and the run waits (`WAITING_FOR_APPROVAL`),
 *   giving up its lease; a pre-approved write records `ToolCallPreApproved`
 *   with its fence, in one append. A read-only tool may ask for input
 *   (`UserInputRequired`): the run waits (`WAITING_FOR_INPUT`) the same way.
 * - A step of an MCP tool whose declared effect and server hints conflict
 *   records `ToolEffectConflictRecorded` right before its `StepStarted`, in
 *   the same append, at each start.
 * - Before any step, the statement of every decision the run holds (an
 *   approval, a denial, an input answer) is ensured in the audit chain: one
 *   that could not be stored right after its decision is stored now (late),
 *   once. If it cannot be stored, the run fails closed
 *   (`AUDIT_PERSISTENCE_FAILED`, `DECISION_STATEMENT_NOT_STORED`): nothing
 *   the decision allows happens without its statement.
 * - A lost lease stops the segment at once: nothing more is recorded.
 */
@Injectable()
export class SegmentRunner {
  private readonly logger = new Logger(SegmentRunner.name);

  constructor(
    private readonly processor: RunCommandProcessor,
    private readonly recorder: AuditRecorder,
    @Inject(TOOL_CATALOG) private readonly tools: ToolCatalog,
    @Inject(AGENT_CATALOG) private readonly agents: AgentCatalog,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly metrics: RuntimeMetrics,
    private readonly index: QueueIndex,
    private readonly steps: StepAppender,
  ) {}

  /** Runs the segment that holds `lease`, from the snapshot its claim returned. */
  async run(claimed: RunSnapshot, lease: SegmentLease): Promise<SegmentOutcome> {
    this.metrics.increment('segmentsStarted');
    const runId = claimed.state.runId ?? '';
    // The segment continues the run's trace, whichever process started the run: its span's parent is the run's first event's context.
    const span = trace.getTracer(TRACER_NAME).startSpan(
      'segment',
      {
        kind: SpanKind.INTERNAL,
        attributes: { [SpanAttribute.RUN_ID]: runId, [SpanAttribute.AGENT]: claimed.state.agent ?? '', [SpanAttribute.ATTEMPT]: lease.attempt, [SpanAttribute.SEGMENT_OWNER]: lease.owner },
      },
      contextWithParent(await this.runTraceContext(runId)),
    );
    const segment = new Segment(this, claimed, lease, span);
    // A cancel recorded while a call is in flight fires the call's signal; the boundary then settles the run.
    const stopListening = this.index.onCancelRequested(runId, () => segment.abort(new RunCancelledSignal()));
    let outcome: SegmentOutcome | undefined;
    try {
      outcome = await context.with(trace.setSpan(context.active(), span), () => segment.execute());
      return outcome;
    } catch (error) {
      outcome = error instanceof SegmentStop ? error.outcome : await segment.failUnexpectedly(error);
      return outcome;
    } finally {
      stopListening();
      segment.abort();
      if (outcome !== undefined) span.setAttribute(SpanAttribute.SEGMENT_OUTCOME, outcome.kind);
      if (outcome?.kind === 'abandoned') recordSpanError(span, outcome.error);
      span.end();
      this.metrics.increment('segmentsStopped');
    }
  }

  /** The run's trace to continue; a store that cannot say is logged and the segment gets a trace of its own. */
  private async runTraceContext(runId: string): Promise<SpanContext | undefined> {
    try {
      return await this.processor.runTraceContext(runId);
    } catch (error) {
      this.logger.warn(`The trace context of run ${runId} could not be read; its segment starts a trace of its own: ${error instanceof Error ? error.message : String(error)}`);
      return undefined;
    }
  }

  /** @internal */ dispatch(command: RunCommand, known: RunSnapshot, span: Span): Promise<RunCommandOutcome> {
    return this.processor.process(command, known, { traceContext: traceContextOfSpan(span.spanContext()) });
  }

  /** @internal */ get stepsTogether(): boolean {
    return this.steps.available;
  }

  /** @internal */ decideAhead(command: RunCommand, known: RunSnapshot, span: Span): DecidedRunCommand {
    return this.steps.decide(command, known, { traceContext: traceContextOfSpan(span.spanContext()) });
  }

  /** @internal */ appendStep(run: readonly DecidedRunCommand[], entry: AuditEntry): Promise<RunSnapshot | null> {
    return this.steps.appendStep(run, entry, this.clock.now());
  }

  /** @internal */ recordAudit(entry: AuditEntry): Promise<boolean> {
    return this.recorder.record(entry, this.clock.now());
  }

  /** @internal */ recordStatement(statement: DecisionStatement): Promise<StatementRecording> {
    return this.recorder.recordStatement(statement, this.clock.now());
  }

  /** @internal */ get context() {
    return { tools: this.tools, agents: this.agents, clock: this.clock, metrics: this.metrics, logger: this.logger };
  }
}

/** One segment's execution state. */
class Segment {
  private snapshot: RunSnapshot;
  private readonly controller = new AbortController();
  /** Set once a write's audit failed: the run must end AUDIT_PERSISTENCE_FAILED, whatever happens next. */
  private failClosed: { failure: FailureInfo; reason: TerminationReason } | null = null;
  private readonly runId: string;
  /** The span the segment's appends are made in: the segment's, or the model or tool call's in progress. */
  private span: Span;

  constructor(
    private readonly runner: SegmentRunner,
    claimed: RunSnapshot,
    private readonly lease: SegmentLease,
    private readonly segmentSpan: Span,
  ) {
    this.snapshot = claimed;
    this.runId = claimed.state.runId ?? '';
    this.span = segmentSpan;
  }

  /**
   * Runs `body` in a child span of the segment's (`name`, with `attributes`):
   * the appends made meanwhile carry its context; it ends when `body` does,
   * with a thrown error recorded (a segment's stop is not an error).
   */
  private async inSpan<T>(name: string, attributes: Record<string, string | number | boolean>, body: (span: Span) => Promise<T>): Promise<T> {
    const parent = trace.setSpan(context.active(), this.segmentSpan);
    const span = trace.getTracer(TRACER_NAME).startSpan(name, { kind: SpanKind.INTERNAL, attributes: { [SpanAttribute.RUN_ID]: this.runId, ...attributes } }, parent);
    this.span = span;
    try {
      return await context.with(trace.setSpan(parent, span), () => body(span));
    } catch (error) {
      if (!(error instanceof SegmentStop)) recordSpanError(span, error);
      throw error;
    } finally {
      this.span = this.segmentSpan;
      span.end();
    }
  }

  private get state(): RunState {
    return this.snapshot.state;
  }

  abort(reason?: Error): void {
    if (!this.controller.signal.aborted) this.controller.abort(reason);
  }

  async execute(): Promise<SegmentOutcome> {
    await this.ensureStatements();
    const agentName = this.state.agent ?? '';
    const agent = this.runner.context.agents.get(agentName);
    if (agent === undefined) {
      return this.fail({ failureClass: 'configuration', message: `Agent "${agentName}" is not configured`, code: 'AGENT_NOT_CONFIGURED' });
    }
    for (let round = 0; round < this.state.maxIterations; round++) {
      const response = await this.modelRound(agent, round);
      if (response.type === 'final') {
        return this.settleWith({ type: 'CompleteRun', data: { runId: this.runId, ...this.lease, finalAnswer: response.content }, metadata: this.now() });
      }
      await this.awaitApprovals(agent, round, response.calls);
      for (const [callIndex, call] of response.calls.entries()) {
        await this.toolCall(agent, round, callIndex, call);
      }
    }
    return this.fail(
      { failureClass: 'unknown', message: `No final answer after ${this.state.maxIterations} rounds`, code: 'MAX_ITERATIONS' },
      'MAX_ITERATIONS',
    );
  }

  /**
   * Ensures the statement of every decision the run holds is in its audit
   * chain (each is recorded at most once: one already there records nothing),
   * before anything a decision allows. One that cannot be stored fails the
   * run closed, except the statement of who started the run: it allows
   * nothing of its own (a write still needs its own audit record), so it is
   * left to the audit-gap saga, counted `deferred`, as a read's audit is.
   */
  private async ensureStatements(): Promise<void> {
    const { metrics, logger } = this.runner.context;
    for (const statement of this.state.statements) {
      if (statement.kind === 'resolution') continue; // The requeued run's, stored before its continuation was started.
      const recording = await this.runner.recordStatement(statement);
      if (recording === 'alreadyStored') continue;
      if (statement.kind === 'start') {
        // Stored here when the caller that requested the run is still storing it, or died first: neither is late for a decision nothing waits on.
        if (recording === 'notStored') {
          metrics.incrementLabelled('decisionStatements', { kind: statement.kind, outcome: 'deferred' });
          logger.warn(`The statement of who started run ${this.runId} could not be stored in the audit trail; the run goes on, and the audit-gap saga stores it later`);
        }
        continue;
      }
      const key = statementKey(statement);
      if (recording === 'stored') {
        metrics.incrementLabelled('decisionStatements', { kind: statement.kind, outcome: 'late' });
        logger.warn(`The statement of ${key} of run ${this.runId} was stored late, before anything it allows`);
        continue;
      }
      metrics.incrementLabelled('decisionStatements', { kind: statement.kind, outcome: 'failClosed' });
      const message = `The statement of ${key} of run ${this.runId} could not be stored in the audit trail; the run fails closed and nothing the decision allows happens`;
      logger.error(message);
      this.failClosed = { failure: { failureClass: 'unknown', message, code: 'DECISION_STATEMENT_NOT_STORED' }, reason: 'AUDIT_PERSISTENCE_FAILED' };
      await this.fail(this.failClosed.failure, this.failClosed.reason);
    }
  }

  /** A model round: reused if recorded, else started, called and recorded. */
  private async modelRound(agent: CatalogAgent, round: number): Promise<ModelResponse> {
    const stepId = stepIdFor({ runId: this.runId, round });
    const done = this.state.steps.get(stepId);
    if (done?.status === 'completed' && done.response !== undefined) {
      // Recorded by an earlier segment: reused, never asked again. Its audit may be missing if that segment died in between.
      await this.audit(stepId);
      return done.response;
    }

    return this.inSpan('model call', { [SpanAttribute.AGENT]: agent.definition.name, [SpanAttribute.ROUND]: round, [SpanAttribute.STEP_ID]: stepId, [SpanAttribute.ATTEMPT]: this.lease.attempt }, async (span) => {
      // Stored before the call, which may be long: who follows the run sees the model being asked. Its response and audit
      // go together where the store allows.
      const start = await this.startStep({ type: 'StartStep', data: { runId: this.runId, ...this.lease, round }, metadata: this.now() }, false);
      let response: ModelResponse;
      try {
        this.runner.context.metrics.increment('modelCalls');
        response = await agent.provider.respond({
          runId: this.runId,
          agent: agent.definition.name,
          round,
          messages: buildConversation(agent.definition, start.state, round),
          tools: this.runner.context.tools.describe(agent.definition.tools),
          signal: this.controller.signal,
        });
      } catch (error) {
        recordSpanError(span, error);
        await start.store();
        return this.fail(describeFailure(error), 'PROVIDER_FAILED', retryAfterOf(error));
      }
      await this.recordStep(start, { type: 'RecordModelResponse', data: { runId: this.runId, ...this.lease, round, response }, metadata: this.now() }, stepId, span);
      return response;
    });
  }

  /**
   * Asks a person's approval for the round's calls that need it and were
   * neither approved nor executed yet: the run waits, and this segment stops.
   * A call that is not offered (or unknown) needs none: it is refused.
   */
  private async awaitApprovals(agent: CatalogAgent, round: number, calls: readonly ToolCallRequest[]): Promise<void> {
    const needed: ApprovalCallRequest[] = [];
    for (const [callIndex, call] of calls.entries()) {
      const stepId = stepIdFor({ runId: this.runId, round, callIndex });
      if (this.state.steps.has(stepId) || this.state.approvals.has(stepId)) continue;
      const requirement = this.approvalRequirement(agent, call.toolName);
      if (requirement !== null) needed.push({ callIndex, effect: this.runner.context.tools.get(call.toolName)?.effect ?? ToolEffect.NON_IDEMPOTENT_WRITE, requirement });
    }
    if (needed.length === 0) return;
    this.runner.context.metrics.increment('approvalsRequested');
    await this.send({
      type: 'RequestApproval',
      data: { runId: this.runId, ...this.lease, round, calls: needed, onDenial: approvalsOf(agent.definition).onDenial },
      metadata: this.now(),
    });
  }

  /** Why a call of this tool needs a person's approval; null when it needs none (or is refused). */
  private approvalRequirement(agent: CatalogAgent, toolName: string): 'write' | 'tool' | null {
    const registered = this.runner.context.tools.get(toolName);
    if (registered === undefined || !agent.definition.tools.includes(toolName)) return null;
    if (registered.requiresApproval) return 'tool';
    if (isWrite(registered.effect) && !approvalsOf(agent.definition).preApproved.includes(toolName)) return 'write';
    return null;
  }

  /** A tool call: reused if recorded (its audit ensured), else fenced, executed, recorded and audited. */
  private async toolCall(agent: CatalogAgent, round: number, callIndex: number, call: ToolCallRequest): Promise<void> {
    const stepId = stepIdFor({ runId: this.runId, round, callIndex });
    if (this.state.steps.get(stepId)?.status === 'completed') {
      // Executed by an earlier segment: never again. Its audit may be missing if that segment died in between.
      await this.audit(stepId);
      return;
    }
    const { tools } = this.runner.context;
    const offered = agent.definition.tools.includes(call.toolName);
    const registered = tools.get(call.toolName);
    const effect = registered?.effect ?? tools.effectFor(call.toolName);
    const refused = !offered || registered === undefined;
    // Reached without an approval only for a write the agent pre-approves (a person's was asked for before this round's calls):
    // the pre-approval goes with the fence, in one append.
    const preApproved = !refused && isWrite(effect) && !this.state.approvals.has(stepId);
    const attributes = { [SpanAttribute.TOOL_NAME]: call.toolName, [SpanAttribute.TOOL_EFFECT]: effect, [SpanAttribute.ROUND]: round, [SpanAttribute.STEP_ID]: stepId, [SpanAttribute.ATTEMPT]: this.lease.attempt };
    await this.inSpan('tool call', attributes, (span) => this.executeToolCall(agent, { round, callIndex, call, stepId, effect, refused, preApproved }, span));
  }

  /** The fenced, executed, recorded and audited call of {@link toolCall}, in its span. */
  private async executeToolCall(
    agent: CatalogAgent,
    { round, callIndex, call, stepId, effect, refused, preApproved }: { round: number; callIndex: number; call: ToolCallRequest; stepId: string; effect: ToolEffect; refused: boolean; preApproved: boolean },
    span: Span,
  ): Promise<void> {
    const { tools } = this.runner.context;
    const registered = tools.get(call.toolName);
    const effectConflict = refused ? undefined : stepEffectConflict(registered?.origin);
    const at = { runId: this.runId, stepId, effect };
    if (isWrite(effect)) await crashPoint(CrashPoint.BEFORE_WRITE_FENCE, at);
    // A write's fence is stored before it runs, and so is the start of a call that needed a person's approval; a read's
    // start may wait for its result (one append after the read).
    const start = await this.startStep(
      {
        type: 'StartStep',
        data: {
          runId: this.runId,
          ...this.lease,
          round,
          callIndex,
          tool: {
            name: call.toolName,
            effect,
            operationDeadlineSeconds: registered?.operationDeadlineSeconds ?? undefined,
            ...(refused ? { refused: true } : {}),
            ...(preApproved ? { preApprovedBy: agent.definition.name } : {}),
            // An MCP tool whose declared effect and server hints disagree: the conflict is recorded with the step, before its start.
            ...(effectConflict === undefined ? {} : { effectConflict }),
          },
        },
        metadata: this.now(),
      },
      !isWrite(effect) && registered?.requiresApproval !== true,
    );
    const step = start.state.steps.get(stepId) as StepRecord;
    span.setAttribute(SpanAttribute.IDEMPOTENCY_KEY, step.idempotencyKey ?? '');
    if (isWrite(effect)) {
      await crashPoint(CrashPoint.AFTER_WRITE_FENCE, at);
      // A segment that stalled past its fence's lease may have lost the run to the reaper: it must not write.
      if (!refused && (this.state.lease?.expiresAt ?? 0) <= this.runner.context.clock.now()) this.stopLeaseLost();
    }

    let outcome: { outcome: 'succeeded'; result: JsonValue } | { outcome: 'failed'; error: FailureInfo };
    const check = tools.validateArguments(call.toolName, call.arguments);
    if (refused || registered === undefined) {
      outcome = { outcome: 'failed', error: { failureClass: 'clientError', code: 'TOOL_NOT_OFFERED', message: `Tool "${call.toolName}" is not offered to agent "${agent.definition.name}"` } };
    } else if (!check.ok) {
      outcome = { outcome: 'failed', error: { failureClass: 'clientError', code: 'INVALID_ARGUMENTS', message: check.errors.join('; ') } };
    } else {
      this.runner.context.metrics.increment('toolExecutions');
      const deadline = registered.operationDeadlineSeconds;
      const limited = deadline === null ? null : deadlineSignal(this.controller.signal, deadline * 1000);
      const signal = limited?.signal ?? this.controller.signal;
      try {
        const userInput = this.state.inputs.get(stepId);
        const workspaceDir = tools.workspaceDir;
        const result = await registered.tool.execute(check.args, {
          runId: this.runId,
          stepId,
          idempotencyKey: step.idempotencyKey ?? '',
          attempt: this.lease.attempt,
          signal,
          ...(userInput === undefined ? {} : { userInput }),
          ...(workspaceDir === undefined ? {} : { workspaceDir }),
        });
        outcome = { outcome: 'succeeded', result: result ?? null };
      } catch (error) {
        if (error instanceof UserInputRequired && effect === ToolEffect.READ_ONLY) {
          this.runner.context.metrics.increment('inputsRequested');
          await start.store();
          await this.send({ type: 'RequestInput', data: { runId: this.runId, ...this.lease, round, callIndex, prompt: error.prompt }, metadata: this.now() });
        }
        outcome = { outcome: 'failed', error: describeFailure(error) };
      } finally {
        limited?.dispose();
      }
    }
    span.setAttribute(SpanAttribute.TOOL_OUTCOME, outcome.outcome);
    if (outcome.outcome === 'failed') recordSpanFailure(span, outcome.error.code ?? outcome.error.failureClass, outcome.error.message);
    await crashPoint(CrashPoint.AFTER_TOOL_RETURNED, at);
    await this.recordStep(start, { type: 'RecordToolExecution', data: { runId: this.runId, ...this.lease, round, callIndex, ...outcome }, metadata: this.now() }, stepId, span, at);
    await crashPoint(CrashPoint.AFTER_STEP_RECORDED, at);
  }

  /**
   * Starts a step: its `StartStep` is sent now, or, when `mayWait` and the
   * store takes a step's records in one commit, decided now and stored with
   * the step's result ({@link recordStep}). The step runs on the state it
   * gives; `store()` stores a start that waited (before anything else is
   * sent about the step: a failure to report, a request for input).
   */
  private async startStep(command: RunCommand, mayWait: boolean): Promise<PendingStart> {
    if (mayWait && this.runner.stepsTogether) {
      const decided = this.runner.decideAhead(command, this.snapshot, this.span);
      // Anything but a start to store (the lease lost, a refusal, a settled run) is sent as it is, and handled as sent; so is a
      // start whose lease the stored one does not nearly cover (a long call, a read's deadline, a boundary long ago): the
      // reaper reads the stored lease, and the call must run under the lease its start gives it.
      if (decided.decision.kind === 'accepted' && decided.events.length > 0 && this.leaseCovers(decided.state, command.metadata.now)) {
        let waiting: DecidedRunCommand | null = decided;
        return {
          state: decided.state,
          store: async () => {
            if (waiting === null) return;
            waiting = null;
            await this.send(command);
          },
          get waiting() {
            return waiting;
          },
        };
      }
    }
    await this.send(command);
    return { state: this.state, store: () => Promise.resolve(), waiting: null };
  }

  /** Whether the stored lease covers nearly all ({@link STORED_LEASE_COVERS}) of the lease a step's start would give it. */
  private leaseCovers(started: RunState, now: number): boolean {
    const stored = (this.state.lease?.expiresAt ?? 0) - now;
    const wanted = (started.lease?.expiresAt ?? 0) - now;
    return stored > 0 && stored >= STORED_LEASE_COVERS * wanted;
  }

  /**
   * Records a step's result and audit: with its start when it waited, in one
   * commit where the store allows it; else one after the other (the start if
   * it waited, the result, then the audit, `beforeAudit` between them).
   */
  private async recordStep(start: PendingStart, record: RunCommand, stepId: string, span: Span, at?: CrashPointContext): Promise<void> {
    if (this.runner.stepsTogether) {
      const waiting = start.waiting;
      const decided = this.runner.decideAhead(record, waiting ?? this.snapshot, this.span);
      const step = decided.state.steps.get(stepId);
      if (decided.decision.kind === 'accepted' && decided.events.length > 0 && step?.status === 'completed' && step.denied !== true) {
        const run = waiting !== null ? [waiting, decided] : [decided];
        const stored = await this.runner.appendStep(run, stepAuditEntry(this.runId, step, this.lease.attempt));
        if (stored !== null) {
          span.setAttribute(SpanAttribute.AUDIT_OUTCOME, 'stored');
          this.adopt(stored);
          return;
        }
      }
    }
    await start.store();
    await this.send(record);
    if (at !== undefined) await crashPoint(CrashPoint.BEFORE_AUDIT, at);
    await this.audit(stepId, span);
  }

  /**
   * Records the step's audit. A write whose audit did not persist fails the
   * run closed; any other step's audit failure is logged and counted.
   */
  private async audit(stepId: string, span?: Span): Promise<void> {
    const step = this.state.steps.get(stepId);
    // A denied call never executed: its audit record is the decision (ApprovalDecisionRecorded).
    if (step === undefined || step.status !== 'completed' || step.denied === true) return;
    const persisted = await this.runner.recordAudit(stepAuditEntry(this.runId, step, this.lease.attempt));
    span?.setAttribute(SpanAttribute.AUDIT_OUTCOME, persisted ? 'stored' : 'failed');
    if (persisted) return;
    const { metrics, logger } = this.runner.context;
    if (step.effect !== null && isWrite(step.effect) && step.toolName !== null) {
      metrics.increment('auditFailClosed');
      metrics.incrementLabelled('auditFailures', { effect: step.effect, mode: 'fail_closed' });
      const error = new AuditPersistenceFailedException(this.runId, stepId, step.toolName, step.effect);
      logger.error(error.message);
      // Remembered, so that if even this report fails to append, the last try still says why: never a retry.
      this.failClosed = { failure: { failureClass: classifyFailure(error), message: error.message, code: error.code }, reason: 'AUDIT_PERSISTENCE_FAILED' };
      await this.fail(this.failClosed.failure, this.failClosed.reason);
    }
    metrics.increment('auditFailSoft');
    metrics.incrementLabelled('auditFailures', { effect: step.effect ?? 'NONE', mode: 'fail_soft' });
    logger.warn(`Audit of step ${stepId} was not stored; the run goes on (fail-soft for ${step.effect ?? step.kind})`);
  }

  /** Reports a failure; the decider retries, dead-letters or ends the run. Always stops the segment. */
  private async fail(error: FailureInfo, reason?: TerminationReason, retryAfterMs?: number): Promise<never> {
    const data = { runId: this.runId, ...this.lease, error, reason, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) };
    return this.settleWith({ type: 'FailRun', data, metadata: this.now() });
  }

  private async settleWith(command: RunCommand): Promise<never> {
    await crashPoint(CrashPoint.BEFORE_SETTLE, { runId: this.runId });
    await this.send(command);
    throw new SegmentStop(this.state.status === 'QUEUED' ? { kind: 'requeued', state: this.state } : { kind: 'settled', state: this.state });
  }

  /**
   * Sends a command under the segment's lease. Stops the segment when the
   * lease is lost or the answer settled, requeued or paused the run (a cancel
   * noticed at this boundary, say). A refused command is a bug here: it is thrown.
   */
  private async send(command: RunCommand): Promise<void> {
    const outcome = await this.runner.dispatch(command, this.snapshot, this.span);
    const { decision } = outcome;
    if (decision.kind === 'leaseLost') this.stopLeaseLost();
    if (decision.kind === 'rejected') throw decision.error;
    this.adopt(outcome);
  }

  /** Takes the run as stored; stops the segment when it is settled, requeued or waiting. */
  private adopt(snapshot: RunSnapshot): void {
    this.snapshot = snapshot;
    const status = this.state.status;
    if (this.state.settlement !== null) throw new SegmentStop({ kind: 'settled', state: this.state });
    if (status === 'QUEUED') throw new SegmentStop({ kind: 'requeued', state: this.state });
    if (status === 'WAITING_FOR_APPROVAL' || status === 'WAITING_FOR_INPUT') throw new SegmentStop({ kind: 'waiting', state: this.state });
  }

  /** Stops the segment that lost (or may have lost) its lease: it records nothing more. */
  private stopLeaseLost(): never {
    this.runner.context.metrics.increment('leaseLost');
    this.runner.context.logger.warn(`Segment ${this.lease.owner} (attempt ${this.lease.attempt}) of run ${this.runId} lost its lease; stopping`);
    this.abort(new LeaseLostSignal());
    throw new SegmentStop({ kind: 'leaseLost' });
  }

  /** An error nobody expected (a store failure, a refused command): report it if the store lets us. */
  async failUnexpectedly(error: unknown): Promise<SegmentOutcome> {
    const { logger } = this.runner.context;
    logger.error(`Segment of run ${this.runId} failed: ${error instanceof Error ? error.stack ?? error.message : String(error)}`);
    try {
      await (this.failClosed === null ? this.fail(describeFailure(error)) : this.fail(this.failClosed.failure, this.failClosed.reason));
      return { kind: 'abandoned', error };
    } catch (stop) {
      if (stop instanceof SegmentStop) return stop.outcome;
      logger.error(`The failure of run ${this.runId} could not be recorded; its lease will expire and the reaper takes it back`);
      return { kind: 'abandoned', error };
    }
  }

  private now() {
    return { now: this.runner.context.clock.now() };
  }
}

/** The wait a failed dependency asked for (a model server's `Retry-After`, as `retryAfterMs` on its error), if it named one. */
function retryAfterOf(error: unknown): number | undefined {
  const value = (error as { retryAfterMs?: unknown } | null)?.retryAfterMs;
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}

/**
 * A thrown value as a recorded failure. Store errors that the store marks
 * retryable count as `connection` (the store, not the run, failed).
 */
function describeFailure(error: unknown): FailureInfo {
  const message = error instanceof Error ? error.message : String(error);
  const code = typeof (error as { code?: unknown })?.code === 'string' ? (error as { code: string }).code : undefined;
  const failureClass = isEventStoreError(error) ? (error.retryable ? 'connection' : 'unknown') : classifyFailure(error);
  return code === undefined ? { failureClass, message } : { failureClass, message, code };
}
