/**
 * The links of README.md, docs/*.md and the test suites' READMEs resolve: a
 * relative link names a file or folder of the repository, and its `#anchor`,
 * when it has one, a heading of that Markdown file (as GitHub makes anchors of
 * headings). The README keeps the test command that CI runs (`.ci/run`).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

const root = join(__dirname, '..', '..');

/** The Markdown files checked: the README, every page of docs/, the README of each folder of test/. */
function markdownFiles(): string[] {
  const docs = readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => join('docs', f));
  const tests = readdirSync(join(root, 'test'))
    .map((folder) => join('test', folder, 'README.md'))
    .filter((file) => existsSync(join(root, file)));
  return ['README.md', ...docs, ...tests];
}

/** The lines of a Markdown file outside its fenced blocks, with their numbers. */
function proseLines(markdown: string): { readonly line: number; readonly text: string }[] {
  const lines: { line: number; text: string }[] = [];
  let fence: string | null = null;
  markdown.split('\n').forEach((text, index) => {
    const marker = /^\s*(```|~~~)/.exec(text)?.[1];
    if (marker !== undefined) {
      if (fence === null) fence = marker;
      else if (marker === fence) fence = null;
      return;
    }
    if (fence === null) lines.push({ line: index + 1, text });
  });
  return lines;
}

/** GitHub's anchor of a heading: lower case, punctuation but `-` and `_` removed, spaces made `-`. */
function anchorOf(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a Markdown file: its headings' (a repeated heading gets `-1`, `-2`, ... as on GitHub) and its `<a id="...">`. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const { text } of proseLines(markdown)) {
    for (const match of text.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(match[1] as string);
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(text)?.[1];
    if (heading === undefined) continue;
    const anchor = anchorOf(heading);
    const count = seen.get(anchor) ?? 0;
    anchors.add(count === 0 ? anchor : `${anchor}-${count}`);
    seen.set(anchor, count + 1);
  }
  return anchors;
}

/** The inline links of a Markdown file (images included), outside code: `[text](target)`. */
function linksOf(markdown: string): { readonly line: number; readonly target: string }[] {
  const links: { line: number; target: string }[] = [];
  for (const { line, text } of proseLines(markdown)) {
    const prose = text.replace(/`[^`]*`/g, '``');
    for (const match of prose.matchAll(/\]\(([^()\s]+)(?:\s+"[^"]*")?\)/g)) links.push({ line, target: match[1] as string });
  }
  return links;
}

/** What is wrong with each relative link of `file`: `README.md:12: docs/x.md#y: no heading "y" in docs/x.md`. */
function brokenLinks(file: string): string[] {
  const broken: string[] = [];
  const markdown = readFileSync(join(root, file), 'utf8');
  for (const { line, target } of linksOf(markdown)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:, ...
    const [path = '', anchor] = target.split('#') as [string, string | undefined];
    const resolved = path === '' ? join(root, file) : join(root, dirname(file), decodeURIComponent(path));
    const where = `${file}:${line}: ${target}`;
    if (!existsSync(resolved)) {
      broken.push(`${where}: no such file ${relative(root, resolved)}`);
      continue;
    }
    if (anchor === undefined || anchor === '') continue;
    if (statSync(resolved).isDirectory() || !resolved.endsWith('.md')) {
      broken.push(`${where}: an anchor in a file that is not Markdown`);
      continue;
    }
    if (!anchorsOf(readFileSync(resolved, 'utf8')).has(anchor)) broken.push(`${where}: no heading makes "#${anchor}" in ${relative(root, resolved)}`);
  }
  return broken;
}

describe("the links of the README, docs/ and the test suites' READMEs", () => {
  it('finds the files: the README, every page of docs/, the test READMEs', () => {
    const files = markdownFiles();
    expect(files).toEqual(expect.arrayContaining(['README.md', 'docs/configuration.md', 'docs/guarantees.md', 'test/crash/README.md', 'test/simulation/README.md']));
  });

  it.each(markdownFiles())('%s: every relative link names a file, and its anchor a heading of it', (file) => {
    expect(brokenLinks(file)).toEqual([]);
  });

  it('can fail: a missing file and a missing heading are seen; anchors are made as GitHub makes them', () => {
    expect(anchorOf('`agent-ledger serve [--port N] [--host H]`')).toBe('agent-ledger-serve---port-n---host-h');
    expect(anchorOf('Crash tests only: `AGENT_LEDGER_CRASH_POINTS`, `AGENT_LEDGER_TEST_LEDGER`')).toBe('crash-tests-only-agent_ledger_crash_points-agent_ledger_test_ledger');
    expect([...anchorsOf('# A\n```sh\n# not a heading\n```\n## B\n## B\n<a id="c"></a>**C**\n')]).toEqual(['a', 'b', 'b-1', 'c']);
    expect(linksOf('see [x](docs/x.md#y), `[not](a link)`, ![img](docs/i.png)\n```\n[no](code)\n```\n')).toEqual([
      { line: 1, target: 'docs/x.md#y' },
      { line: 1, target: 'docs/i.png' },
    ]);
  });

  it("the README's map of the documentation has one line for every page of docs/", () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const map = readme.slice(readme.indexOf('\n## Documentation\n'), readme.indexOf('\n## ', readme.indexOf('\n## Documentation\n') + 1));
    const listed = [...map.matchAll(/^\| \[[^\]]+\]\(docs\/([^)#]+\.md)\) \|/gm)].map((m) => m[1] as string);
    const pages = readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md'));
    expect([...listed].sort()).toEqual([...pages].sort());
  });

  it("keeps the README's test command, which CI runs (.ci/run): npm ci && npm test, in a shell block of its own", () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    expect(readme).toMatch(/```sh\nnpm ci && npm test\n```/);
    expect(readFileSync(join(root, '.ci', 'run'), 'utf8')).toContain("The README's test command is `npm ci && npm test`");
  });
});
