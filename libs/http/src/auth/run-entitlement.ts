import type { QueryBus } from '@nestjs/cqrs';
import { assertRunId, RunNotFoundError } from '@agent-ledger/domain';
import { GetRunState } from '@agent-ledger/runtime';
import { RUN_ID_RULE, RUN_ID_RULE_MESSAGE } from '@agent-ledger/validation';
import { RequestValidationError } from '../validation/request-validation.error';
import type { ApiCaller } from './api-caller';
import { mayUseAgent } from './api-caller';
import { NotEntitledError } from './auth.errors';

/** What a request names of the runs it reaches. */
export interface RunTarget {
  /** The run it names, if any. */
  readonly runId: string | undefined;
  /** Where it names it: the path (`/runs/{runId}`) or the query (`?runId=`); said in a refusal. */
  readonly from: 'path' | 'query';
  /** Whether, naming no run, it reads every run's data at once (`@AcrossRuns()`). */
  readonly acrossRuns: boolean;
}

/**
 * Checks that a caller limited to some agents may reach what a request
 * names: the run it names must be of one of its agents (else
 * `RunNotFoundError`, as if it did not exist; the run's own stream says whose
 * it is, the read model may not have it yet); naming none, a request that
 * reads every run is refused (`NotEntitledError`). A value that is not a run
 * id is refused as the route refuses it for any key (400 naming `runId`),
 * before it reaches the store. A caller for every agent passes.
 *
 * The API key guard checks each route's request with it, and the MCP
 * endpoint each tool call's arguments.
 */
export async function assertEntitledToRuns(queries: QueryBus, caller: ApiCaller, target: RunTarget): Promise<void> {
  if (caller.agents === null) return;
  const { runId, from, acrossRuns } = target;
  if (runId === undefined) {
    if (acrossRuns) {
      throw new NotEntitledError(caller.keyId, null, `The API key "${caller.keyId}" is limited to the runs of ${caller.agents.join(', ')}; this route reads every run (name one run with runId, or use a key for every agent)`);
    }
    return;
  }
  // Not a run id (whitespace, 300 characters...): refused before it reaches the store, which would refuse it as a stream name that names no field.
  if (from === 'path') assertRunId(runId);
  else if (!RUN_ID_RULE.test(runId)) throw new RequestValidationError([{ field: 'runId', rule: 'matches', message: RUN_ID_RULE_MESSAGE.replace('$property', 'runId') }]);
  const { state } = await queries.execute(new GetRunState({ runId }));
  if (!mayUseAgent(caller, state.agent)) throw new RunNotFoundError(runId);
}
