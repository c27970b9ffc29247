import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import type { ApprovalRow, ApprovalState } from '@agent-ledger/projections';
import { APPROVAL_STATES } from '@agent-ledger/projections';
import { ApprovalCallDoc } from './approval-call.doc';
import type { DocMatches } from './doc-matches';

const ON_DENIAL = ['tellModel', 'endRun'] as const;

/** {@link ApprovalRow} (the approvals read model's row) in the OpenAPI document. Times are ms since the epoch. */
@ApiSchema({
  name: 'ApprovalRow',
  description: 'One request for approval (a run and a model round), as the approvals read model shows it. Times are ms since the epoch, from the events.',
})
export class ApprovalRowDoc implements ApprovalRow {
  @ApiProperty({ type: String, description: '`<runId>/r<round>`: the request\'s key' })
  readonly approvalId!: string;

  @ApiProperty({ type: String })
  readonly runId!: string;

  @ApiProperty({ type: String, description: "The run's agent" })
  readonly agent!: string;

  @ApiProperty({ type: 'integer', description: 'The model round whose calls wait for the decision (the `round` of POST /runs/{runId}/approval)' })
  readonly round!: number;

  @ApiProperty({ type: [ApprovalCallDoc], description: 'The calls one decision covers, exactly as the model asked for them' })
  readonly calls!: readonly ApprovalCallDoc[];

  @ApiProperty({ enum: ON_DENIAL, description: 'What a denial does: `tellModel` (the model is told, the run goes on) or `endRun` (the run fails APPROVAL_DENIED)' })
  readonly onDenial!: (typeof ON_DENIAL)[number];

  @ApiProperty({ type: 'integer', description: 'When the run started to wait' })
  readonly requestedAt!: number;

  @ApiProperty({ enum: APPROVAL_STATES, description: '`pending` (the run waits), `approved`, `denied`, or `cancelled` (the run was settled while it waited: nobody decided)' })
  readonly state!: ApprovalState;

  @ApiProperty({ type: String, nullable: true, example: 'key:ops', description: "Who decided, as its principal's label: `key:<id>` (an API key), `development` (no keys), `bus:<id>` (a host's bus caller), or `unverified:<name>` (a name recorded before principals were typed, never checked); for `cancelled`, who cancelled the run (null when it was settled otherwise). Null while pending" })
  readonly decidedBy!: string | null;

  @ApiProperty({ type: String, nullable: true, description: "The reason the person gave (or null); for `cancelled`, the run's termination reason. Null while pending" })
  readonly reason!: string | null;

  @ApiProperty({ type: 'integer', nullable: true, description: 'When it was decided (for `cancelled`: when the run was settled). Null while pending' })
  readonly decidedAt!: number | null;
}

const _matches: DocMatches<ApprovalRowDoc, ApprovalRow> = true;
