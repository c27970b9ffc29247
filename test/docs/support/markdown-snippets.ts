/**
 * The TypeScript blocks of Markdown files as programs: read from the
 * Markdown (fences ```ts and ```typescript, indented ones in list items
 * included), turned into TypeScript files as the `<!-- snippet: ... -->`
 * comment before a block says, compiled with the compiler settings of the
 * `agent-ledger init` starter against the repository's sources, each
 * diagnostic named by the Markdown file and line it comes from.
 *
 * The comment, on the line before the fence (blank lines between allowed),
 * holds options separated by `;`:
 * - `given: a, b`: names the block uses without declaring them, from
 *   {@link VALUE_GIVENS} (values: the block is statements of an `async`
 *   function that receives them, the way the docs say their examples run) or
 *   {@link DECLARATION_GIVENS} (declarations put before a block of
 *   declarations, one that exports: it is compiled as the module it is);
 * - `compile-only`: compiled, not run (each such block is listed, with why,
 *   by the test).
 * A block without a comment is a script: compiled as it is and run with `node`.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ts from 'typescript';
import { starterFiles } from '../../../apps/agent-ledger/src/cli/starter-files';

const root = join(__dirname, '..', '..', '..');

/** One fenced TypeScript block of a Markdown file. */
export interface MarkdownSnippet {
  /** The Markdown file, relative to the repository (`README.md`). */
  readonly file: string;
  /** The 1-based line of the opening fence. */
  readonly line: number;
  /** The block's text, without the fences, its indentation (a list item's) removed. */
  readonly code: string;
  readonly compileOnly: boolean;
  /** The names the comment says the block is given, in its order; empty without a comment. */
  readonly given: readonly string[];
}

/** `README.md:42`: where a block's fence is. */
export function whereOf(snippet: Pick<MarkdownSnippet, 'file' | 'line'>): string {
  return `${snippet.file}:${snippet.line}`;
}

const FENCE = /^( *)(`{3,}|~{3,})\s*(ts|typescript)(?:\s.*)?$/;
const ANY_FENCE = /^( *)(`{3,}|~{3,})(.*)$/;
const MARKER = /^\s*<!--\s*snippet:(.*?)-->\s*$/;

/**
 * The TypeScript blocks of `markdown`, in order. Throws, naming the file and
 * line, for a `<!-- snippet` comment that is not well formed or holds an
 * unknown option, and for a fence that is never closed.
 */
export function snippetsOf(file: string, markdown: string): MarkdownSnippet[] {
  const lines = markdown.split('\n');
  const snippets: MarkdownSnippet[] = [];
  for (let index = 0; index < lines.length; index++) {
    const opening = ANY_FENCE.exec(lines[index] as string);
    if (opening === null) continue;
    const [, indent = '', fence = ''] = opening;
    const close = lines.findIndex((text, at) => at > index && new RegExp(`^ {0,${indent.length + 3}}${fence[0] === '`' ? '`' : '~'}{${fence.length},}\\s*$`).test(text));
    if (close < 0) throw new Error(`${file}:${index + 1}: a fence that is never closed`);
    if (FENCE.test(lines[index] as string)) {
      const code = lines
        .slice(index + 1, close)
        .map((text) => (text.startsWith(indent) ? text.slice(indent.length) : text.trimStart()))
        .join('\n');
      snippets.push({ file, line: index + 1, code, ...markerBefore(file, lines, index) });
    }
    index = close;
  }
  return snippets;
}

function markerBefore(file: string, lines: readonly string[], fenceIndex: number): { compileOnly: boolean; given: string[] } {
  let at = fenceIndex - 1;
  while (at >= 0 && (lines[at] as string).trim() === '') at--;
  const text = at >= 0 ? (lines[at] as string) : '';
  const marker = MARKER.exec(text);
  if (marker === null) {
    // A comment that ends on this line: its first line, to tell a snippet comment over several lines.
    let start = at;
    if (text.trimEnd().endsWith('-->')) while (start > 0 && !(lines[start] as string).includes('<!--')) start--;
    const comment = lines.slice(Math.max(start, 0), at + 1).join('\n');
    if (/<!--\s*snippet/.test(comment)) throw new Error(`${file}:${at + 1}: a snippet comment must be one line, <!-- snippet: option; option -->, got: ${comment.trim()}`);
    return { compileOnly: false, given: [] };
  }
  let compileOnly = false;
  const given: string[] = [];
  for (const option of (marker[1] as string).split(';').map((part) => part.trim())) {
    if (option === 'compile-only') compileOnly = true;
    else if (option.startsWith('given:')) {
      const names = option.slice('given:'.length).split(',').map((name) => name.trim());
      const bad = names.find((name) => !/^[A-Za-z_$][\w$]*$/.test(name));
      if (bad !== undefined) throw new Error(`${file}:${at + 1}: "given:" takes names separated by commas, got "${bad}"`);
      given.push(...names);
    } else {
      throw new Error(`${file}:${at + 1}: unknown snippet option "${option}" (known: compile-only, given: names)`);
    }
  }
  return { compileOnly, given };
}

/** A name a block of statements is given: its type, and where its value comes from when the block runs. */
export interface ValueGiven {
  /** Its type, in the block's file. */
  readonly type: string;
  /** Import lines its type needs. */
  readonly imports?: readonly string[];
}

/** A name a block of declarations is given: declarations put before the block. */
export interface DeclarationGiven {
  readonly declarations: string;
}

/** The starter's `src/tools.ts` (what `agent-ledger init` writes). */
function starterToolsSource(): string {
  const file = starterFiles({ name: 'snippets', version: '0.0.0' }).find((f) => f.path === 'src/tools.ts');
  if (file === undefined) throw new Error('The starter has no src/tools.ts');
  return file.content;
}

/**
 * The values a block of statements may be given. Their values are made when
 * the block runs: `client` (a client of the service the test started, with
 * its key), `signal` (aborts once `render` has rendered an event) and
 * `render` (prints the event) by the runner; the run ids by the test, each
 * a run in the state its name says (`markdown-snippets.e2e-spec.ts`).
 */
export const VALUE_GIVENS: Readonly<Record<string, ValueGiven>> = {
  client: { type: 'AgentLedgerClient', imports: ["import type { AgentLedgerClient } from '@agent-ledger/client';"] },
  runId: { type: 'string' },
  otherRunId: { type: 'string' },
  askingRunId: { type: 'string' },
  unwantedRunId: { type: 'string' },
  deadRunId: { type: 'string' },
  interruptedRunId: { type: 'string' },
  agent: { type: 'string' },
  input: { type: 'unknown' },
  signal: { type: 'AbortSignal' },
  render: { type: '(event: StreamedEvent) => void', imports: ["import type { StreamedEvent } from '@agent-ledger/client';"] },
};

/**
 * The declarations a block of declarations may be given: the README's first
 * tool is an excerpt of a plugin module such as the starter's `src/tools.ts`,
 * so it is given that file's imports and what the rest of such a module
 * declares; its second uses the host's own `TicketClient`.
 */
export const DECLARATION_GIVENS: Readonly<Record<string, DeclarationGiven>> = {
  TicketClient: {
    declarations: 'declare class TicketClient {\n  comment(ticketId: string, text: string, options: { readonly idempotencyKey: string }): Promise<string>;\n}',
  },
  starterImports: {
    declarations: starterToolsSource()
      .split('\n')
      .filter((line) => line.startsWith('import '))
      .join('\n'),
  },
  SaveNoteArgs: { declarations: 'interface SaveNoteArgs extends JsonObject {\n  readonly title: string;\n  readonly text: string;\n}' },
  saveNote: { declarations: 'declare function saveNote(title: string, text: string, idempotencyKey: string): Promise<void>;' },
  ReadNoteTool: { declarations: 'declare class ReadNoteTool implements AgentTool<JsonObject> {\n  execute(args: JsonObject, context: ToolContext): Promise<JsonValue>;\n}' },
};

/** How a block is run: `script` with `node`, `statements` by the runner (which gives it its values), or not at all. */
export type SnippetKind = 'script' | 'statements' | 'declarations';

/** A block as a TypeScript file. */
export interface SnippetSource {
  readonly snippet: MarkdownSnippet;
  readonly kind: SnippetKind;
  /** The file's name (no folder): `README.md-80.ts`. */
  readonly name: string;
  readonly text: string;
  /** For each line of `text` (0-based), the Markdown line it comes from (the fence's for a line the test added). */
  readonly markdownLines: readonly number[];
}

/**
 * The TypeScript file of a block. A block given values is the body of
 * `export default async function snippet(givens)`, its imports moved above
 * it; a block given declarations (one that exports) gets them before it; a
 * block given nothing is a script, as it is. Throws, naming the block, for a
 * name no table knows, or one of the wrong kind for the block.
 */
export function snippetSource(snippet: MarkdownSnippet): SnippetSource {
  const name = `${snippet.file.replace(/[^\w.-]+/g, '_')}-${snippet.line}.ts`;
  const codeLines = snippet.code.split('\n');
  const fromCode = codeLines.map((_, index) => snippet.line + 1 + index);
  if (snippet.given.length === 0) return { snippet, kind: 'script', name, text: snippet.code, markdownLines: fromCode };
  const unknown = snippet.given.filter((given) => VALUE_GIVENS[given] === undefined && DECLARATION_GIVENS[given] === undefined);
  if (unknown.length > 0) {
    throw new Error(`${whereOf(snippet)}: given ${unknown.join(', ')}: not a name the test knows (values: ${Object.keys(VALUE_GIVENS).join(', ')}; declarations: ${Object.keys(DECLARATION_GIVENS).join(', ')})`);
  }
  const parsed = ts.createSourceFile(name, snippet.code, ts.ScriptTarget.ES2022, true);
  const exportsSomething = parsed.statements.some((statement) => ts.canHaveModifiers(statement) && (ts.getModifiers(statement) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) || parsed.statements.some(ts.isExportAssignment);
  if (exportsSomething) {
    const values = snippet.given.filter((given) => DECLARATION_GIVENS[given] === undefined);
    if (values.length > 0) throw new Error(`${whereOf(snippet)}: a block of declarations (it exports) is given declarations, not the values ${values.join(', ')}`);
    const prelude = snippet.given.map((given) => (DECLARATION_GIVENS[given] as DeclarationGiven).declarations).join('\n').split('\n');
    return {
      snippet,
      kind: 'declarations',
      name,
      text: [...prelude, ...codeLines].join('\n'),
      markdownLines: [...prelude.map(() => snippet.line), ...fromCode],
    };
  }
  const declarations = snippet.given.filter((given) => VALUE_GIVENS[given] === undefined);
  if (declarations.length > 0) throw new Error(`${whereOf(snippet)}: a block of statements is given values, not the declarations ${declarations.join(', ')}`);
  // The block's own imports go above the function, on lines of their own (mapped to theirs).
  const importLines = new Set<number>();
  for (const statement of parsed.statements) {
    if (!ts.isImportDeclaration(statement) && !ts.isImportEqualsDeclaration(statement)) continue;
    const first = parsed.getLineAndCharacterOfPosition(statement.getStart(parsed)).line;
    const last = parsed.getLineAndCharacterOfPosition(statement.getEnd()).line;
    for (let line = first; line <= last; line++) importLines.add(line);
  }
  const givens = snippet.given.map((given) => [given, VALUE_GIVENS[given] as ValueGiven] as const);
  const typeImports = [...new Set(givens.flatMap(([, given]) => given.imports ?? []))];
  const lines: string[] = [];
  const markdownLines: number[] = [];
  const add = (text: string, markdownLine: number): void => {
    lines.push(text);
    markdownLines.push(markdownLine);
  };
  codeLines.forEach((text, index) => importLines.has(index) && add(text, fromCode[index] as number));
  for (const line of typeImports) add(line, snippet.line);
  add(`export interface SnippetGivens { ${givens.map(([given, { type }]) => `readonly ${given}: ${type};`).join(' ')} }`, snippet.line);
  add(`export default async function snippet({ ${snippet.given.join(', ')} }: SnippetGivens): Promise<void> {`, snippet.line);
  codeLines.forEach((text, index) => add(importLines.has(index) ? '' : text, fromCode[index] as number));
  add('}', snippet.line);
  return { snippet, kind: 'statements', name, text: lines.join('\n'), markdownLines };
}

/** The compiler settings the `agent-ledger init` starter writes (its tsconfig.json), and its package.json. */
export function starterProject(): { compilerOptions: Record<string, unknown>; packageJson: string } {
  const files = starterFiles({ name: 'snippets', version: '0.0.0' });
  const tsconfig = files.find((file) => file.path === 'tsconfig.json');
  const packageJson = files.find((file) => file.path === 'package.json');
  if (tsconfig === undefined || packageJson === undefined) throw new Error("The starter has no tsconfig.json or package.json");
  return { compilerOptions: (JSON.parse(tsconfig.content) as { compilerOptions: Record<string, unknown> }).compilerOptions, packageJson: packageJson.content };
}

/** The result of {@link compileSnippets}. */
export interface CompiledSnippets {
  /** Each source's diagnostics, `README.md:81: TS2304: Cannot find name 'x'.`; empty when it compiles. */
  readonly diagnostics: ReadonlyMap<SnippetSource, readonly string[]>;
  /** Each source's JavaScript file (emitted even when it has errors). */
  readonly javascript: ReadonlyMap<SnippetSource, string>;
  /** Diagnostics of the settings, not of a file. */
  readonly global: readonly string[];
  /** The folder of the emitted project (its package.json is the starter's): where the blocks' JavaScript files are. */
  readonly projectDir: string;
}

/**
 * Compiles the sources as files of a project written in `workDir` whose
 * package.json and compiler settings are the starter's (so CommonJS, strict),
 * the `@agent-ledger/*` packages mapped to the repository's sources (`paths`)
 * and Node's types from the repository. Only the blocks' own diagnostics
 * count (the packages' sources are not what a user compiles: they get the
 * built declarations, with the starter's `skipLibCheck`). Each block's
 * JavaScript is emitted; {@link packageResolution} says how `node` finds the
 * packages it requires. `packages` names other packages the blocks may import,
 * from the repository's node_modules (a Nest host's `@nestjs/*`, which the
 * starter does not depend on).
 */
export function compileSnippets(sources: readonly SnippetSource[], workDir: string, extra: { readonly packages?: readonly string[] } = {}): CompiledSnippets {
  const projectDir = join(workDir, 'project');
  const outDir = join(workDir, 'out');
  const snippetsDir = join(projectDir, 'snippets');
  mkdirSync(snippetsDir, { recursive: true });
  const starter = starterProject();
  writeFileSync(join(projectDir, 'package.json'), starter.packageJson);
  const files = new Map<string, SnippetSource>();
  for (const source of sources) {
    const path = join(snippetsDir, source.name);
    if (files.has(path)) throw new Error(`Two blocks make the file ${source.name}`);
    writeFileSync(path, source.text);
    files.set(path, source);
  }
  const converted = ts.convertCompilerOptionsFromJson(starter.compilerOptions, projectDir);
  if (converted.errors.length > 0) throw new Error(`The starter's compiler options: ${converted.errors.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n')).join('; ')}`);
  const options: ts.CompilerOptions = {
    ...converted.options,
    // The project's layout, not its language: sources in two trees, out of the way; the packages from the repository.
    rootDir: '/',
    outDir,
    baseUrl: root,
    paths: { '@agent-ledger/*': ['libs/*/src'], ...Object.fromEntries((extra.packages ?? []).map((name) => [name, [join('node_modules', name)]])) },
    typeRoots: [join(root, 'node_modules', '@types')],
    noEmitOnError: false,
  };
  const program = ts.createProgram({ rootNames: [...files.keys()], options });
  const format = (diagnostic: ts.Diagnostic, source: SnippetSource | undefined): string => {
    const message = `TS${diagnostic.code}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
    if (source === undefined || diagnostic.file === undefined || diagnostic.start === undefined) return message;
    const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
    return `${source.snippet.file}:${source.markdownLines[line] ?? source.snippet.line}: ${message}`;
  };
  const diagnostics = new Map<SnippetSource, string[]>();
  const javascript = new Map<SnippetSource, string>();
  for (const [path, source] of files) {
    const file = program.getSourceFile(path);
    if (file === undefined) throw new Error(`${path} is not in the program`);
    diagnostics.set(source, [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)].map((d) => format(d, source)));
    const emitted = program.emit(file);
    if (emitted.emitSkipped) throw new Error(`${whereOf(source.snippet)}: nothing emitted`);
    javascript.set(source, join(outDir, path.replace(/\.ts$/, '.js')));
  }
  const global = [...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics()].map((d) => format(d, undefined));
  // The emitted blocks are CommonJS files of a project with the starter's package.json, as compiled.
  const emittedProject = join(outDir, projectDir);
  mkdirSync(emittedProject, { recursive: true });
  writeFileSync(join(emittedProject, 'package.json'), starter.packageJson);
  return { diagnostics, javascript, global, projectDir: emittedProject };
}


/**
 * How `node` finds the `@agent-ledger/*` packages a block requires, as the
 * service's tests start the service (`test/e2e/support/entry-point.ts`): in
 * CI (`CI=true`), where `.ci/run` has built them, the **built** packages
 * (the repository's node_modules, whose `@agent-ledger/*` are the workspace's
 * packages, on `NODE_PATH`); elsewhere their sources through ts-node and the
 * repository's `paths`, so that no build is needed and none is stale.
 */
export function packageResolution(): { readonly args: readonly string[]; readonly env: Readonly<Record<string, string>> } {
  if (process.env.CI === 'true' && existsSync(join(root, 'libs', 'client', 'dist', 'index.js'))) return { args: [], env: { NODE_PATH: join(root, 'node_modules') } };
  return {
    args: ['-r', require.resolve('ts-node/register/transpile-only'), '-r', require.resolve('tsconfig-paths/register')],
    env: { TS_NODE_PROJECT: join(root, 'tsconfig.json'), TS_NODE_TRANSPILE_ONLY: '1' },
  };
}
