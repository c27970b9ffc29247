import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** One broken rule, in the OpenAPI document. */
export class ValidationIssueDoc {
  @ApiProperty({ example: 'agent' })
  field!: string;

  @ApiProperty({ example: 'isString' })
  rule!: string;

  @ApiProperty({ example: 'agent must be a string' })
  message!: string;
}

/** The error body ({@link ApiErrorBody}) in the OpenAPI document. */
export class ApiErrorBodyDoc {
  @ApiProperty({ example: 400 })
  statusCode!: number;

  @ApiProperty({ example: 'Bad Request' })
  error!: string;

  @ApiProperty({ description: 'A stable, machine-readable code', example: 'INVALID_FIELD' })
  code!: string;

  @ApiProperty({ example: 'agent must be a string' })
  message!: string;

  @ApiPropertyOptional({ description: 'For a refused input: the field' })
  field?: string;

  @ApiPropertyOptional({ description: 'For a refused input: the rule it breaks' })
  rule?: string;

  @ApiPropertyOptional({ type: [ValidationIssueDoc], description: 'For a refused body or query: every broken rule' })
  issues?: ValidationIssueDoc[];
}
