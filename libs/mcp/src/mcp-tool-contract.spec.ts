import { contractChanges, contractOf, parametersOf } from './mcp-tool-contract';

const tool = {
  name: 'count',
  description: 'Counts.',
  inputSchema: { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { label: { type: 'string' } } },
  annotations: { title: 'Count', readOnlyHint: false, idempotentHint: true, destructiveHint: false, openWorldHint: true },
};

describe('the contract of an MCP tool', () => {
  it('has the same fingerprint whatever the order of keys, the title, the description or openWorldHint', () => {
    const reordered = { ...tool, description: 'Other.', inputSchema: { properties: { label: { type: 'string' } }, type: 'object', $schema: tool.inputSchema.$schema }, annotations: { idempotentHint: true, readOnlyHint: false, destructiveHint: false } };
    expect(contractOf(reordered).fingerprint).toBe(contractOf(tool).fingerprint);
    expect(contractChanges(contractOf(tool), contractOf(reordered))).toEqual([]);
  });

  it('names what changed: the input schema, each hint, the output schema, the task support', () => {
    const changed = { ...tool, inputSchema: { type: 'object' }, annotations: { readOnlyHint: true }, outputSchema: { type: 'object' }, execution: { taskSupport: 'required' } };
    expect(contractChanges(contractOf(tool), contractOf(changed))).toEqual([
      'input schema changed',
      'hints changed: readOnlyHint false -> true, idempotentHint true -> unset, destructiveHint false -> unset',
      'output schema changed',
      'task support changed: none -> required',
    ]);
  });

  it('offers the input schema without its $schema', () => {
    expect(parametersOf(tool)).toEqual({ type: 'object', properties: { label: { type: 'string' } } });
  });
});
