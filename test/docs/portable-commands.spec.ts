/**
 * The shell commands the README and docs/ tell a reader to type work on macOS
 * as on Linux: no GNU-only command or option in a shell block, and the CLI is
 * called as its bin (`npx agent-ledger`, `agent-ledger`), never through an
 * `npm run` wrapper.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = join(__dirname, '..', '..');

/** A GNU-only command or option, and what works on both. */
interface NonPortable {
  readonly pattern: RegExp;
  readonly instead: string;
}

const NON_PORTABLE: readonly NonPortable[] = [
  { pattern: /\bsha256sum\b/, instead: 'GNU coreutils only (macOS: shasum -a 256): use node -e, or avoid the need' },
  { pattern: /\bmd5sum\b/, instead: 'GNU coreutils only (macOS: md5): use node -e' },
  { pattern: /\bsed\s+(-[a-zA-Z]*\s+)*-i\b/, instead: 'sed -i takes a suffix argument on macOS: write to another file, or use node -e' },
  { pattern: /\bdate\s+(-[a-zA-Z]*\s+)*(-d\b|--date\b)/, instead: 'date -d is GNU only (macOS: date -j -f): use node -e' },
  { pattern: /\breadlink\s+-f\b/, instead: 'readlink -f is missing on older macOS: use node -p "fs.realpathSync(...)"' },
  { pattern: /\bgrep\s+(-[a-zA-Z]*\s+)*-[a-zA-Z]*P/, instead: 'grep -P (Perl regular expressions) is GNU only: use grep -E' },
  { pattern: /\bxargs\s+(-[a-zA-Z]*\s+)*-r\b/, instead: 'xargs -r is GNU only' },
  { pattern: /\bstat\s+(-[a-zA-Z]*\s+)*-c\b/, instead: 'stat -c is GNU only (macOS: stat -f)' },
  { pattern: /\bbase64\s+(-[a-zA-Z]*\s+)*-w\b/, instead: 'base64 -w is GNU only' },
  { pattern: /(^|[;&|(]\s*)timeout\s+\d/, instead: 'timeout is GNU coreutils only' },
  { pattern: /\bnproc\b/, instead: 'nproc is GNU coreutils only (macOS: sysctl -n hw.ncpu)' },
  { pattern: /(^|[;&|(]\s*)tac\b/, instead: 'tac is GNU coreutils only (macOS: tail -r)' },
  { pattern: /\bfind\b.*\s-printf\b/, instead: 'find -printf is GNU only' },
];

const WRAPPER = /\bnpm\s+run\s+(-s\s+|--silent\s+)?cli\b/;

/** The shell blocks (```sh, bash, shell, console, zsh) of a Markdown file, with the line each starts at. */
function shellBlocks(markdown: string): { readonly line: number; readonly code: string }[] {
  const blocks: { line: number; code: string }[] = [];
  const lines = markdown.split('\n');
  let open: { line: number; code: string[] } | null = null;
  lines.forEach((text, index) => {
    if (open === null) {
      if (/^\s*```(sh|bash|shell|console|zsh)\s*$/.test(text)) open = { line: index + 2, code: [] };
    } else if (/^\s*```\s*$/.test(text)) {
      blocks.push({ line: open.line, code: open.code.join('\n') });
      open = null;
    } else {
      open.code.push(text);
    }
  });
  return blocks;
}

/** The GNU-only uses in a shell block: `<line>: <the line> (<what instead>)`, comments left out. */
function nonPortableUses(code: string, firstLine: number): string[] {
  const found: string[] = [];
  code.split('\n').forEach((text, index) => {
    const command = text.replace(/(^|\s)#\s.*$/, '');
    for (const { pattern, instead } of NON_PORTABLE) if (pattern.test(command)) found.push(`${firstLine + index}: ${text.trim()} (${instead})`);
  });
  return found;
}

function markdownFiles(): string[] {
  const docs = join(root, 'docs');
  return [join(root, 'README.md'), ...readdirSync(docs, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.md')).map((f) => join(docs, f))];
}

describe('documented commands', () => {
  it('the check finds what it looks for: the old README line (sha256sum), sed -i, date -d, grep -P, readlink -f; a comment that names one is no use', () => {
    const old = ["RUN=ik-$(printf '%s' 'report-2026-11-30' | sha256sum | cut -c1-32)", "sed -i 's/a/b/' f", 'date -d yesterday +%s', "grep -oP '(?<=id\":\")\\w+' x", 'readlink -f data', 'ls   # not sha256sum'].join('\n');
    expect(nonPortableUses(old, 10).map((f) => f.split(' (')[0])).toEqual([
      "10: RUN=ik-$(printf '%s' 'report-2026-11-30' | sha256sum | cut -c1-32)",
      "11: sed -i 's/a/b/' f",
      '12: date -d yesterday +%s',
      "13: grep -oP '(?<=id\":\")\\w+' x",
      '14: readlink -f data',
    ]);
    expect(shellBlocks('text\n```sh\necho a\n```\n```ts\nconst a = 1;\n```\n```bash\necho b\n```\n')).toEqual([
      { line: 3, code: 'echo a' },
      { line: 9, code: 'echo b' },
    ]);
  });

  it.each(markdownFiles().map((file) => [relative(root, file), file]))('%s: no GNU-only command in a shell block', (_name, file) => {
    const findings = shellBlocks(readFileSync(file, 'utf8')).flatMap((block) => nonPortableUses(block.code, block.line));
    expect(findings).toEqual([]);
  });

  it.each(markdownFiles().map((file) => [relative(root, file), file]))('%s: the CLI is called as agent-ledger, not through npm run cli', (_name, file) => {
    const lines = readFileSync(file, 'utf8')
      .split('\n')
      .map((text, index) => `${index + 1}: ${text}`)
      .filter((text) => WRAPPER.test(text));
    expect(lines).toEqual([]);
  });
});
