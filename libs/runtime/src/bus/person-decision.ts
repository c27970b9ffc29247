import { Injectable } from '@nestjs/common';
import type { DecideApproval, RunState, SubmitInput } from '@agent-ledger/domain';
import { RunCommandProcessor } from '../persistence/run-command-processor';
import { QueueIndex } from '../queue/queue-index';
import type { AuditStatementStatus } from './decision-statements';
import { DecisionStatements } from './decision-statements';

/** A person's decision as it took effect: the run after it, and whether its statement is in the audit chain. */
export interface DecisionTakenOnRun {
  readonly state: RunState;
  readonly auditStatement: AuditStatementStatus;
}

/**
 * A person's decision on a waiting run (an approval or a denial, an input
 * answer): on the run first, then its statement in the audit chain. Of
 * concurrent decisions (and cancels) exactly one takes effect, the others are
 * refused. A statement that cannot be stored leaves the decision standing
 * (`auditStatement: 'pending'`): the segment that resumes the run stores it
 * before anything else, and fails the run closed if it cannot; a run that
 * settled with the decision gets it from the audit-gap saga.
 */
@Injectable()
export class PersonDecision {
  constructor(
    private readonly processor: RunCommandProcessor,
    private readonly statements: DecisionStatements,
    private readonly index: QueueIndex,
  ) {}

  /** @throws the decider's refusal (`RunNotFoundError`, `RunAlreadySettledError`, `RunNotWaitingError`, ...) */
  async take(command: DecideApproval | SubmitInput): Promise<DecisionTakenOnRun> {
    const outcome = await this.processor.process(command);
    if (outcome.decision.kind === 'rejected') throw outcome.decision.error;
    const auditStatement = await this.statements.recordDecided(outcome);
    this.index.changes.notify();
    return { state: outcome.state, auditStatement };
  }
}
