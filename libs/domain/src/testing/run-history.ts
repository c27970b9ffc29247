import { foldEvents } from '../decider';
import type { JsonValue } from '../json';
import type { Principal } from '../principal/principal';
import { busPrincipal } from '../principal/principal';
import type { RunCommand, StepTool } from '../run/run-commands';
import type { RunDecider } from '../run/run-decider';
import type { FailureInfo, ModelResponse, RunEvent } from '../run/run-events';
import type { RunMode } from '../run/run-mode';
import type { RunState } from '../run/run-state';
import { stepIdFor } from '../run/step-id';
import { isToolEffect, isWrite } from '../tool-effect/tool-effect';

/**
 * Builds a run's event history for specs by sending commands through the
 * decider itself, so a `given` can never hold a history the rules forbid.
 * Each method fails loudly if the decider does not accept the command.
 */
export class RunHistory {
  private readonly recorded: RunEvent[] = [];

  constructor(
    private readonly decider: RunDecider,
    readonly runId = 'run-1',
  ) {}

  /** The events so far. */
  get events(): readonly RunEvent[] {
    return [...this.recorded];
  }

  request(now: number, mode: RunMode = 'queued', input: JsonValue = { task: 'demo' }, maxIterations?: number, requestedBy: Principal = busPrincipal('starter')): this {
    return this.send({ type: 'RequestRun', data: { runId: this.runId, agent: 'demo-agent', input, mode, requestedBy, maxIterations }, metadata: { now } });
  }

  claim(owner: string, now: number): this {
    return this.send({ type: 'ClaimRun', data: { runId: this.runId, owner }, metadata: { now } });
  }

  startLlm(lease: Lease, round: number, now: number): this {
    return this.send({ type: 'StartStep', data: { runId: this.runId, ...lease, round }, metadata: { now } });
  }

  respond(lease: Lease, round: number, response: ModelResponse, now: number): this {
    return this.send({ type: 'RecordModelResponse', data: { runId: this.runId, ...lease, round, response }, metadata: { now } });
  }

  /** Starts a tool step; a write not approved yet is pre-approved in the same append (as a segment does), unless `approve` is false. */
  startTool(lease: Lease, round: number, callIndex: number, tool: StepTool, now: number, approve = true): this {
    const stepId = stepIdFor({ runId: this.runId, round, callIndex });
    const preApprove = approve && isToolEffect(tool.effect) && isWrite(tool.effect) && tool.refused !== true && !this.state.approvals.has(stepId);
    const sent = preApprove ? { ...tool, preApprovedBy: this.state.agent ?? 'demo-agent' } : tool;
    return this.send({ type: 'StartStep', data: { runId: this.runId, ...lease, round, callIndex, tool: sent }, metadata: { now } });
  }

  preApprove(lease: Lease, round: number, callIndex: number, tool: StepTool, now: number): this {
    const agent = this.state.agent ?? 'demo-agent';
    return this.send({ type: 'RecordPreApproval', data: { runId: this.runId, ...lease, round, callIndex, toolName: tool.name, effect: tool.effect, agent }, metadata: { now } });
  }

  /** The run's state after the events so far. */
  get state(): RunState {
    return foldEvents(this.decider, this.recorded);
  }

  executed(lease: Lease, round: number, callIndex: number, result: JsonValue, now: number): this {
    return this.send({
      type: 'RecordToolExecution',
      data: { runId: this.runId, ...lease, round, callIndex, outcome: 'succeeded', result },
      metadata: { now },
    });
  }

  fail(lease: Lease, error: FailureInfo, now: number): this {
    return this.send({ type: 'FailRun', data: { runId: this.runId, ...lease, error }, metadata: { now } });
  }

  reap(now: number): this {
    return this.send({ type: 'ReapRun', data: { runId: this.runId, reaper: 'reaper:host:1' }, metadata: { now } });
  }

  cancel(now: number, requestedBy: Principal = busPrincipal('operator')): this {
    return this.send({ type: 'RequestCancel', data: { runId: this.runId, requestedBy }, metadata: { now } });
  }

  complete(lease: Lease, finalAnswer: string, now: number): this {
    return this.send({ type: 'CompleteRun', data: { runId: this.runId, ...lease, finalAnswer }, metadata: { now } });
  }

  /** Sends any command; throws unless it is accepted. */
  send(command: RunCommand): this {
    const decision = this.decider.decide(command, foldEvents(this.decider, this.recorded));
    if (decision.kind !== 'accepted') {
      throw new Error(`RunHistory: ${command.type} was not accepted: ${JSON.stringify(decision)}`);
    }
    this.recorded.push(...decision.events);
    return this;
  }
}

/** The lease a segment acts under, as segment commands name it. */
export interface Lease {
  readonly owner: string;
  readonly attempt: number;
}
