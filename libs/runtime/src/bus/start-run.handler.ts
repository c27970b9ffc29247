import { randomUUID } from 'node:crypto';
import { Inject } from '@nestjs/common';
import { CommandHandler } from '@nestjs/cqrs';
import type { ICommandHandler } from '@nestjs/cqrs';
import type { RunMode } from '@agent-ledger/domain';
import { InvalidFieldError, MAX_ITERATIONS, RunAlreadyExistsError } from '@agent-ledger/domain';
import { principalOf, ValidatedCommandHandler } from '@agent-ledger/validation';
import type { Clock } from '../clock/clock';
import { CLOCK } from '../clock/clock';
import { RunCommandProcessor } from '../persistence/run-command-processor';
import { DecisionStatements } from './decision-statements';
import { QueueIndex } from '../queue/queue-index';
import type { AgentCatalog } from '../segment/agent-catalog';
import { AGENT_CATALOG } from '../segment/agent-catalog';
import { IdempotencyKeyReusedError, runIdForIdempotencyKey, sameJson } from './idempotency';
import { InteractiveSegment } from './interactive-segment';
import { runSummaryOf } from './run-summary';
import { StartRun } from './start-run.command';
import type { StartMode, StartRunResult } from './start-run.command';

/**
 * Handles {@link StartRun} (validated first): records the run's request
 * (`RequestRun`, naming the command's principal as who started it) and its
 * statement in the audit chain, then a queued run is left to a worker and an interactive
 * one is executed here ({@link InteractiveSegment}).
 *
 * A command with an idempotency key is safe to repeat: the key becomes the
 * run id, so a repeat is refused by the run's decider (`RUN_ALREADY_EXISTS`,
 * nothing appended) and answered with the existing run instead, when it asks
 * for the same agent, mode and input (`IdempotencyKeyReusedError` otherwise).
 */
@CommandHandler(StartRun)
export class StartRunHandler extends ValidatedCommandHandler<StartRun> implements ICommandHandler<StartRun> {
  constructor(
    private readonly processor: RunCommandProcessor,
    private readonly statements: DecisionStatements,
    private readonly interactive: InteractiveSegment,
    private readonly index: QueueIndex,
    @Inject(AGENT_CATALOG) private readonly agents: AgentCatalog,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    super();
  }

  protected async handle(command: StartRun): Promise<StartRunResult> {
    const mode: StartMode = command.mode ?? 'queued';
    if (command.idempotencyKey !== undefined && command.runId !== undefined) {
      throw new InvalidFieldError('idempotencyKey', 'must not be given with runId (the run id is derived from the key)');
    }
    const runId = command.idempotencyKey === undefined ? (command.runId ?? randomUUID()) : runIdForIdempotencyKey(command.idempotencyKey);
    try {
      await this.request(command, runId, mode);
    } catch (error) {
      if (!(error instanceof RunAlreadyExistsError) || command.idempotencyKey === undefined) throw error;
      return this.replay(runId, mode, command);
    }
    if (mode === 'queued') {
      this.index.changes.notify();
      return { mode, runId, status: 'QUEUED', replayed: false };
    }
    const { state, segment } = await this.interactive.run(runId);
    return { mode, runId, status: state.status ?? 'RUNNING', replayed: false, segment, run: runSummaryOf(runId, state), state };
  }

  /**
   * Records the run's request, then states who started it in the run's audit
   * chain (not stored, it is counted and stored later, by the run's segment or
   * the audit-gap saga: the run is not held back for it).
   * @throws InvalidFieldError for an unknown agent; the decider's refusal (`RunAlreadyExistsError`)
   */
  private async request(command: StartRun, runId: string, mode: RunMode): Promise<void> {
    const agent = this.agents.get(command.agent);
    if (agent === undefined) {
      throw new InvalidFieldError('agent', `must name a configured agent (known: ${this.agents.names().join(', ') || 'none'})`);
    }
    const outcome = await this.processor.process({
      type: 'RequestRun',
      data: { runId, agent: command.agent, input: command.input, mode, requestedBy: principalOf(command.principal), maxIterations: Math.min(agent.definition.maxIterations, MAX_ITERATIONS) },
      metadata: { now: this.clock.now() },
    });
    if (outcome.decision.kind === 'rejected') throw outcome.decision.error;
    await this.statements.recordDecided(outcome);
  }

  /** The run an idempotency key already named, if the command asks for the same one. */
  private async replay(runId: string, mode: StartMode, command: StartRun): Promise<StartRunResult> {
    const { state } = await this.processor.load(runId);
    if (state.agent !== command.agent) throw new IdempotencyKeyReusedError(runId, 'agent');
    if (state.mode !== mode) throw new IdempotencyKeyReusedError(runId, 'mode');
    if (!sameJson(state.input, command.input)) throw new IdempotencyKeyReusedError(runId, 'input');
    const status = state.status ?? 'QUEUED';
    return mode === 'queued'
      ? { mode, runId, status, replayed: true }
      : { mode, runId, status, replayed: true, segment: null, run: runSummaryOf(runId, state), state };
  }
}
