/**
 * How `support/markdown-snippets.ts` reads the TypeScript blocks of a
 * Markdown file and turns each into a file (the e2e test compiles and runs
 * them): which fences are found, where, with which comment; what a malformed
 * comment or an unknown name is told; how a block given values is wrapped,
 * each line mapped back to the Markdown.
 */
import { snippetSource, snippetsOf, starterProject } from './support/markdown-snippets';

const MARKDOWN = [
  '# A page', // 1
  '',
  '```ts', // 3
  "import { x } from 'y';",
  'x();',
  '```',
  '',
  '```sh', // 8
  '```ts not a block: inside a sh fence',
  '```',
  '',
  '<!-- snippet: given: client, runId -->', // 12
  '',
  '```typescript', // 14
  "import { AgentLedgerApiError } from '@agent-ledger/client';",
  'const run = await client.getRun(runId);',
  '```',
  '',
  '- a list item:',
  '',
  '  <!-- snippet: compile-only; given: client -->',
  '  ```ts', // 22
  '  await client.health();',
  '  ```',
  '',
  '```yaml',
  'a: 1',
  '```',
].join('\n');

describe('snippetsOf', () => {
  it('finds the ts and typescript fences, indented ones included, not a fence inside another, with their comments', () => {
    expect(snippetsOf('page.md', MARKDOWN)).toEqual([
      { file: 'page.md', line: 3, code: "import { x } from 'y';\nx();", compileOnly: false, given: [] },
      { file: 'page.md', line: 14, code: "import { AgentLedgerApiError } from '@agent-ledger/client';\nconst run = await client.getRun(runId);", compileOnly: false, given: ['client', 'runId'] },
      { file: 'page.md', line: 22, code: 'await client.health();', compileOnly: true, given: ['client'] },
    ]);
  });

  it('refuses an unknown option, a bad name, a comment on several lines and a fence never closed, naming the line', () => {
    expect(() => snippetsOf('page.md', '<!-- snippet: run-later -->\n```ts\nx;\n```')).toThrow('page.md:1: unknown snippet option "run-later" (known: compile-only, given: names)');
    expect(() => snippetsOf('page.md', '\n<!-- snippet: given: a b -->\n```ts\nx;\n```')).toThrow('page.md:2: "given:" takes names separated by commas, got "a b"');
    expect(() => snippetsOf('page.md', '<!-- snippet: given: a,\n b -->\n```ts\nx;\n```')).toThrow(/^page\.md:2: a snippet comment must be one line/);
    expect(() => snippetsOf('page.md', 'text\n```ts\nx;\n')).toThrow('page.md:2: a fence that is never closed');
  });
});

describe('snippetSource', () => {
  const [script, statements] = snippetsOf('page.md', MARKDOWN);

  it('keeps a script as it is', () => {
    expect(snippetSource(script!)).toMatchObject({ kind: 'script', name: 'page.md-3.ts', text: "import { x } from 'y';\nx();", markdownLines: [4, 5] });
  });

  it("wraps a block given values in an async function of them, its imports above it, each line mapped to the Markdown's", () => {
    const source = snippetSource(statements!);
    expect(source.kind).toBe('statements');
    expect(source.text.split('\n')).toEqual([
      "import { AgentLedgerApiError } from '@agent-ledger/client';",
      "import type { AgentLedgerClient } from '@agent-ledger/client';",
      'export interface SnippetGivens { readonly client: AgentLedgerClient; readonly runId: string; }',
      'export default async function snippet({ client, runId }: SnippetGivens): Promise<void> {',
      '',
      'const run = await client.getRun(runId);',
      '}',
    ]);
    expect(source.markdownLines).toEqual([15, 14, 14, 14, 15, 16, 14]);
  });

  it('puts the declarations given to a block that exports before it; refuses a name it does not know, or of the wrong kind', () => {
    const declarations = snippetSource({ file: 'page.md', line: 1, code: 'export const c: TicketClient | null = null;', compileOnly: true, given: ['TicketClient'] });
    expect(declarations.kind).toBe('declarations');
    expect(declarations.text).toMatch(/^declare class TicketClient \{[\s\S]*\}\nexport const c: TicketClient \| null = null;$/);
    expect(() => snippetSource({ file: 'page.md', line: 7, code: 'x;', compileOnly: false, given: ['client', 'nobody'] })).toThrow(/^page\.md:7: given nobody: not a name the test knows/);
    expect(() => snippetSource({ file: 'page.md', line: 7, code: 'export const a = runId;', compileOnly: false, given: ['runId'] })).toThrow(
      'page.md:7: a block of declarations (it exports) is given declarations, not the values runId',
    );
    expect(() => snippetSource({ file: 'page.md', line: 7, code: 'await x;', compileOnly: false, given: ['TicketClient'] })).toThrow(
      'page.md:7: a block of statements is given values, not the declarations TicketClient',
    );
  });
});

describe('starterProject', () => {
  it("is the starter's: CommonJS (no \"type\" in its package.json, module node16), strict", () => {
    const { compilerOptions, packageJson } = starterProject();
    expect(compilerOptions).toMatchObject({ module: 'node16', strict: true });
    expect(JSON.parse(packageJson)).not.toHaveProperty('type');
  });
});
