import 'reflect-metadata';
import { IsString, ValidateNested, validateSync } from 'class-validator';
import { Type } from 'class-transformer';
import { validationIssuesOf } from './validate-message';

class Filter {
  @IsString()
  status!: string;
}

class Query {
  @IsString()
  agent!: string;

  @ValidateNested()
  @Type(() => Filter)
  filter!: Filter;
}

describe('validationIssuesOf', () => {
  it('names nested fields with dotted paths, each broken rule once', () => {
    const query = Object.assign(new Query(), { agent: 7, filter: Object.assign(new Filter(), { status: 3 }) });
    expect(validationIssuesOf(validateSync(query)).map(({ field, rule }) => ({ field, rule }))).toEqual([
      { field: 'agent', rule: 'isString' },
      { field: 'filter.status', rule: 'isString' },
    ]);
  });

  it('reports a value that is not an object with rules on the root its caller names: `message` on the bus, what the HTTP API passes', () => {
    const errors = validateSync(42 as unknown as object, { forbidUnknownValues: true });
    expect(validationIssuesOf(errors)).toEqual([{ field: 'message', rule: 'object', message: 'message must be an object with validation rules' }]);
    expect(validationIssuesOf(errors, { root: 'body', notAnObject: () => 'body must be a JSON object' })).toEqual([
      { field: 'body', rule: 'object', message: 'body must be a JSON object' },
    ]);
  });
});
