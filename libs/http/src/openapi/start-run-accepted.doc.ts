import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { RunStatus } from '@agent-ledger/domain';
import type { StartRunAccepted } from '../runs/run-answers';
import type { DocMatches } from './doc-matches';

const QUEUED = ['queued'] as const;

/** {@link StartRunAccepted} (`POST /runs` queued: 202) in the OpenAPI document. */
@ApiSchema({ name: 'StartRunAccepted', description: 'A queued run is recorded (or, with `replayed: true`, the run of a repeated idempotency key)' })
export class StartRunAcceptedDoc implements StartRunAccepted {
  @ApiProperty({ type: String })
  readonly runId!: string;

  @ApiProperty({ enum: QUEUED })
  readonly mode!: (typeof QUEUED)[number];

  @ApiProperty({ enum: Object.values(RunStatus), description: "`QUEUED` for a new run; a replay gives the run's current status" })
  readonly status!: RunStatus;

  @ApiProperty({ type: Boolean, description: 'Whether the idempotency key named an existing run (nothing new was started)' })
  readonly replayed!: boolean;
}

const _matches: DocMatches<StartRunAcceptedDoc, StartRunAccepted> = true;
