import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import type { StartRunInteractive } from '../runs/run-answers';
import type { DocMatches } from './doc-matches';
import { RunViewDoc } from './run-view.doc';
import { nullableEnum } from './schema-fragments';

const INTERACTIVE = ['interactive'] as const;
/** How the segment of an interactive start ends (`SegmentOutcome['kind']` of the runtime; `_matches` below keeps them equal). */
const SEGMENT_ENDS = ['settled', 'requeued', 'waiting', 'leaseLost', 'abandoned'] as const;

/** {@link StartRunInteractive} (`POST /runs` interactive: 200) in the OpenAPI document. */
@ApiSchema({ name: 'StartRunInteractive', description: 'An interactive run, executed during the request: the run as its own stream tells it' })
export class StartRunInteractiveDoc implements StartRunInteractive {
  @ApiProperty({ type: String })
  readonly runId!: string;

  @ApiProperty({ enum: INTERACTIVE })
  readonly mode!: (typeof INTERACTIVE)[number];

  @ApiProperty({ type: Boolean, description: 'Whether the idempotency key named an existing run (nothing was executed)' })
  readonly replayed!: boolean;

  @ApiProperty({
    ...nullableEnum(SEGMENT_ENDS),
    description: "How the request's segment ended (`waiting`: the run waits for a person's approval or input; `leaseLost`, `abandoned`: the run may still be RUNNING, the reaper settles it later); null for a replay",
  })
  readonly segment!: (typeof SEGMENT_ENDS)[number] | null;

  @ApiProperty({ type: RunViewDoc })
  readonly run!: RunViewDoc;
}

const _matches: DocMatches<StartRunInteractiveDoc, StartRunInteractive> = true;
