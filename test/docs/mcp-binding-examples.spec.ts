/**
 * The MCP bindings the docs show (docs/mcp.md, the README, the agents-file
 * and configuration pages) are bindings the service takes: every YAML block
 * with an `mcpServers` key is validated as the service validates it (an
 * agents file when it has `agents`, else the list alone). If an example stops
 * being valid, this fails, naming the file and the line.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { ConfigReader, parseAgentsConfig, validateMcpServerBindings } from '@agent-ledger/runtime';

const root = join(__dirname, '..', '..');
const PAGES = ['docs/mcp.md', 'README.md', 'docs/models-and-agents.md', 'docs/configuration.md', 'docs/plugins.md'];

/** Each ```yaml block of `text` that has an `mcpServers` key, with its first line's number. */
function bindingBlocks(text: string): { line: number; yaml: string }[] {
  const blocks: { line: number; yaml: string }[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (!/^\s*```ya?ml\s*$/.test(lines[i] as string)) continue;
    const indent = /^\s*/.exec(lines[i] as string)?.[0].length ?? 0;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length && !/^\s*```\s*$/.test(lines[j] as string); j++) body.push((lines[j] as string).slice(indent));
    if (body.some((line) => /^mcpServers:/.test(line))) blocks.push({ line: i + 1, yaml: body.join('\n') });
    i = j;
  }
  return blocks;
}

const examples = PAGES.flatMap((page) => bindingBlocks(readFileSync(join(root, page), 'utf8')).map((block) => ({ page, ...block })));

describe('the MCP bindings of the docs', () => {
  it('finds the examples (docs/mcp.md and the README at least)', () => {
    expect(examples.filter((example) => example.page === 'docs/mcp.md').length).toBeGreaterThanOrEqual(1);
    expect(examples.filter((example) => example.page === 'README.md')).toHaveLength(1);
  });

  it.each(examples.map((example) => [`${example.page}:${example.line}`, example] as const))('%s is a binding the service takes', (_where, example) => {
    const document = parse(example.yaml) as Record<string, unknown>;
    const source = join(root, example.page);
    if ('agents' in document) {
      expect(parseAgentsConfig(example.yaml, source, { source, baseDir: root }).mcpServers.length).toBeGreaterThan(0);
    } else {
      const reader = new ConfigReader();
      const bindings = validateMcpServerBindings(document['mcpServers'], 'mcpServers', reader, { source, baseDir: root });
      expect(reader.issues).toEqual([]);
      expect(bindings?.length).toBeGreaterThan(0);
    }
  });
});
