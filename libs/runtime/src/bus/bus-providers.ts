import { CancelRunHandler } from './cancel-run.handler';
import { DecideRunApprovalHandler } from './decide-run-approval.handler';
import { DecisionStatements } from './decision-statements';
import { GetRunStateHandler } from './get-run-state.handler';
import { InteractiveSegment } from './interactive-segment';
import { PersonDecision } from './person-decision';
import { RequeueDeadLetteredRunHandler } from './requeue-dead-lettered-run.handler';
import { RunService } from './run-service';
import { StartRunHandler } from './start-run.handler';
import { SubmitRunInputHandler } from './submit-run-input.handler';

/** The handlers of the public commands and queries, what they share, and the `RunService` facade over them. */
export const BUS_PROVIDERS = [
  DecisionStatements,
  InteractiveSegment,
  PersonDecision,
  StartRunHandler,
  CancelRunHandler,
  RequeueDeadLetteredRunHandler,
  DecideRunApprovalHandler,
  SubmitRunInputHandler,
  GetRunStateHandler,
  RunService,
];
