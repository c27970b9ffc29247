import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import type { AuditChainBreak } from '@agent-ledger/domain';
import type { RunChainBreak } from '@agent-ledger/runtime';
import type { DocMatches } from './doc-matches';

const PROBLEMS = ['hashMismatch', 'brokenLink', 'sequenceGap', 'duplicateStep'] as const satisfies readonly AuditChainBreak['problem'][];

/** {@link RunChainBreak} (a break in one run's audit chain) in the OpenAPI document. */
@ApiSchema({ name: 'RunChainBreak', description: "A break in one run's audit chain" })
export class RunChainBreakDoc implements RunChainBreak {
  @ApiProperty({ type: String })
  readonly runId!: string;

  @ApiProperty({ type: 'integer', description: "The record's position in the run's audit stream (0-based)" })
  readonly index!: number;

  @ApiProperty({ type: String, nullable: true })
  readonly stepId!: string | null;

  @ApiProperty({
    enum: PROBLEMS,
    description: '`hashMismatch`: the record was edited; `brokenLink`: one was removed, inserted or reordered; `sequenceGap`; `duplicateStep`: a second record for a step',
  })
  readonly problem!: AuditChainBreak['problem'];
}

const _matches: DocMatches<RunChainBreakDoc, RunChainBreak> = true;
