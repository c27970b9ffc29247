import { Inject, Injectable, Logger } from '@nestjs/common';
import type { DecisionStatement } from '@agent-ledger/domain';
import { runEventStatementKey, statementKey } from '@agent-ledger/domain';
import type { Clock } from '../clock/clock';
import { CLOCK } from '../clock/clock';
import { RuntimeMetrics } from '../metrics/runtime-metrics';
import type { StatementRecording } from '../persistence/audit-recorder';
import { AuditRecorder } from '../persistence/audit-recorder';
import type { RunCommandOutcome } from '../persistence/run-command-processor';

/**
 * Whether the statements of a person's decision are in the run's audit chain
 * (`recorded`) or could not be stored yet (`pending`: stored before anything
 * the decision allows happens, or the run fails closed).
 */
export type AuditStatementStatus = 'recorded' | 'pending';

/**
 * Stores the statement of a decision that took effect on a run (an approval,
 * a denial, an input answer, a requeue's resolution) in the run's audit
 * chain, right after the decision, through the `AuditRecorder`; a statement
 * not stored is logged and counted (`decisionStatements`), never thrown.
 */
@Injectable()
export class DecisionStatements {
  private readonly logger = new Logger(DecisionStatements.name);

  constructor(
    private readonly recorder: AuditRecorder,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly metrics: RuntimeMetrics,
  ) {}

  /**
   * Records a statement. Not stored, it is counted `deferred` (right after
   * its decision: a segment or the saga stores it later) or `failed` (a
   * repeat, `late`, could not store it either); a repeat that stored it is
   * counted `late`.
   */
  async record(statement: DecisionStatement, when: 'deferred' | 'late'): Promise<StatementRecording> {
    const recording = await this.recorder.recordStatement(statement, this.clock.now());
    if (recording === 'notStored') {
      this.metrics.incrementLabelled('decisionStatements', { kind: statement.kind, outcome: when === 'deferred' ? 'deferred' : 'failed' });
      this.logger.warn(`The statement of ${statementKey(statement)} of run ${statement.data.runId} was not stored; the decision stands, and nothing it allows happens before it is`);
    } else if (when === 'late' && recording === 'stored') {
      this.metrics.incrementLabelled('decisionStatements', { kind: statement.kind, outcome: 'late' });
      this.logger.warn(`The statement of ${statementKey(statement)} of run ${statement.data.runId} was stored late`);
    }
    return recording;
  }

  /** Records the statement of every decision event a command appended; `pending` when one was not stored. */
  async recordDecided(outcome: RunCommandOutcome): Promise<AuditStatementStatus> {
    let status: AuditStatementStatus = 'recorded';
    for (const event of outcome.appended) {
      const key = runEventStatementKey(event);
      const statement = key === null ? undefined : outcome.state.statements.find((s) => statementKey(s) === key);
      if (statement !== undefined && (await this.record(statement, 'deferred')) === 'notStored') status = 'pending';
    }
    return status;
  }
}
