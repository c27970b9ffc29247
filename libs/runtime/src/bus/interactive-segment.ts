import { Inject, Injectable } from '@nestjs/common';
import type { RunState } from '@agent-ledger/domain';
import type { Clock } from '../clock/clock';
import { CLOCK } from '../clock/clock';
import { RunCommandProcessor } from '../persistence/run-command-processor';
import type { SegmentOutcome } from '../segment/segment-runner';
import { SegmentRunner } from '../segment/segment-runner';
import { newSegmentOwner } from '../segment/segment-identity';

/** How an interactive run's segment ended, and the run as it stands after it. */
export interface InteractiveSegmentResult {
  readonly state: RunState;
  /** How the segment ended; `settled` also when a cancel won before the claim (no segment ran). */
  readonly segment: SegmentOutcome['kind'];
}

/**
 * Executes an interactive run in its caller: claims it with a lease of the
 * caller's own and runs one segment, until the run settles or waits for a
 * person (a worker resumes it after the decision). A failure settles it
 * `FAILED`; it is never retried here.
 */
@Injectable()
export class InteractiveSegment {
  constructor(
    private readonly processor: RunCommandProcessor,
    private readonly segments: SegmentRunner,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** @throws the claim's refusal (other than a cancel that won), or the store's errors */
  async run(runId: string): Promise<InteractiveSegmentResult> {
    const owner = newSegmentOwner('interactive');
    const claim = await this.processor.process({ type: 'ClaimRun', data: { runId, owner }, metadata: { now: this.clock.now() } });
    // A cancel that landed between the request and the claim wins: the caller gets the cancelled run, not an error.
    if (claim.decision.kind === 'rejected' && claim.state.status === 'CANCELLED') return { state: claim.state, segment: 'settled' };
    if (claim.decision.kind !== 'accepted') {
      throw claim.decision.kind === 'rejected' ? claim.decision.error : new Error(`Run ${runId} could not be claimed`);
    }
    const segment = await this.segments.run(claim, { owner, attempt: claim.state.attempt });
    const state = segment.kind === 'leaseLost' || segment.kind === 'abandoned' ? (await this.processor.load(runId)).state : segment.state;
    return { state, segment: segment.kind };
  }
}
