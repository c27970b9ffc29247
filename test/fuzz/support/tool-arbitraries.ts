/**
 * fast-check arbitraries of file-tool calls as a hostile or broken model
 * makes them: arguments that violate the tool's schema (not an object,
 * missing or extra fields, wrong types, empty or over-long paths), absurd
 * sizes, and paths that try to leave the workspace: `..`, absolute paths
 * (POSIX, Windows drive and UNC, `file://`, `~`), the fixture's links,
 * Windows separators, NUL bytes, unicode look-alikes and normalisation forms
 * of dots and names, lone surrogates, very long names and paths.
 */
import fc from 'fast-check';
import { CANARY, WORKSPACE_NAMES } from './workspace-fixture';

/** The file tools. */
export const FILE_TOOLS = ['files.read', 'files.list', 'files.write', 'files.append'] as const;
export type FileTool = (typeof FILE_TOOLS)[number];

/** One call of a file tool, as a model would send it. */
export interface ToolCall {
  readonly tool: FileTool;
  readonly arguments: unknown;
}

const segment = fc.oneof(
  { arbitrary: fc.constantFrom(...WORKSPACE_NAMES.flatMap((name) => name.split('/'))), weight: 8 },
  { arbitrary: fc.constantFrom('..', '.', '', '...', '.. ', ' ..', '..\u200b', '%2e%2e', '..%2f', '~', 'C:', 'con', 'nul', 'aux.txt'), weight: 6 },
  { arbitrary: fc.constantFrom('sentinel', 'workspace', 'workspace-evil', 'secret.txt', 'etc', 'passwd', 'tmp', CANARY, `${CANARY}.txt`), weight: 5 },
  // Look-alikes of dots and separators, and normalisation forms: none of them is `..` or `/` to the file system.
  { arbitrary: fc.constantFrom('．．', '‥', '\u2024\u2024', '︰', '⁄', '∕', '／', '＼', 'ｓｕｂ', 'e\u0301', '\u00e9', 'ﬁle', '\u202e', 'Ａ'), weight: 3 },
  { arbitrary: fc.constantFrom('\ud800', '\udfff', 'a\u0000b', '\u0000', '\n', '\t', '\r'), weight: 2 },
  { arbitrary: fc.integer({ min: 250, max: 300 }).map((n) => 'x'.repeat(n)), weight: 1 },
  { arbitrary: fc.integer({ min: 100, max: 140 }).map((n) => 'é'.repeat(n)), weight: 1 },
  { arbitrary: fc.string({ unit: 'grapheme', maxLength: 8 }), weight: 2 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 8 }), weight: 1 },
);

const separator = fc.oneof({ arbitrary: fc.constant('/'), weight: 6 }, { arbitrary: fc.constantFrom('\\', '//', '/./', '\\\\', '/\\'), weight: 2 });

const prefix = fc.oneof(
  { arbitrary: fc.constant(''), weight: 10 },
  { arbitrary: fc.constantFrom('/', '\\', './', '../', '../../', '..\\..\\', 'C:\\', 'C:/', 'c:', '\\\\server\\share\\', '\\\\?\\C:\\', '//server/share/', 'file:///', '~/', '/etc/', '/proc/self/', '/dev/'), weight: 3 },
);

const suffix = fc.oneof({ arbitrary: fc.constant(''), weight: 8 }, { arbitrary: fc.constantFrom('/', '/.', '/..', '\\', '\u0000', '.txt', ' ', '\u0000.txt'), weight: 2 });

/** A path a hostile model might send. `base` is the fixture's temp folder (absolute paths into it are tried too). */
export function hostilePath(base: string): fc.Arbitrary<string> {
  const composed = fc.tuple(prefix, fc.array(fc.tuple(segment, separator), { minLength: 1, maxLength: 6 }), suffix).map(([p, parts, s]) => {
    const joined = parts.map(([seg, sep], i) => (i === parts.length - 1 ? seg : `${seg}${sep}`)).join('');
    return `${p}${joined}${s}`;
  });
  return fc.oneof(
    { arbitrary: composed, weight: 12 },
    { arbitrary: fc.constantFrom(...WORKSPACE_NAMES), weight: 3 },
    { arbitrary: fc.integer({ min: 1, max: 40 }).map((n) => `${'../'.repeat(n)}${CANARY}`), weight: 2 },
    {
      arbitrary: fc.constantFrom(`${base}/sentinel`, `${base}/workspace/notes.txt`, `${base}/workspace/../sentinel`, `${base}/${CANARY}`, '/etc/passwd', `/tmp/${CANARY}`, `/${CANARY}`),
      weight: 2,
    },
    // Very long paths: near the schema's 4096-character limit, and over it; deep folders.
    { arbitrary: fc.integer({ min: 1000, max: 2100 }).map((n) => `${'a/'.repeat(n)}${CANARY}`), weight: 1 },
    { arbitrary: fc.integer({ min: 4090, max: 4100 }).map((n) => 'p'.repeat(n)), weight: 1 },
    { arbitrary: fc.integer({ min: 60, max: 80 }).map((n) => `${'d'.repeat(60)}/`.repeat(n)), weight: 1 },
  );
}

/** File content: ordinary, unicode (lone surrogates included), and sizes around the limit and far beyond. */
export function content(maxFileBytes: number): fc.Arbitrary<string> {
  return fc.oneof(
    { arbitrary: fc.string({ maxLength: 40 }), weight: 6 },
    { arbitrary: fc.string({ unit: 'binary', maxLength: 20 }), weight: 2 },
    { arbitrary: fc.integer({ min: -2, max: 2 }).map((d) => 'c'.repeat(Math.max(0, maxFileBytes + d))), weight: 1 },
    { arbitrary: fc.integer({ min: 0, max: 2 }).map((d) => 'é'.repeat(Math.floor(maxFileBytes / 2) + d)), weight: 1 },
    { arbitrary: fc.constantFrom(10, 100).map((m) => 'z'.repeat(maxFileBytes * m)), weight: 1 },
  );
}

/** The arguments of a call of `tool`: schema-shaped with a hostile path, or breaking the schema. */
export function toolArguments(tool: FileTool, base: string, maxFileBytes: number): fc.Arbitrary<unknown> {
  const path = hostilePath(base);
  const writes = tool === 'files.write' || tool === 'files.append';
  return fc.oneof(
    { arbitrary: writes ? fc.record({ path, content: content(maxFileBytes) }) : fc.record({ path }), weight: 16 },
    { arbitrary: writes ? fc.record({ path }) : fc.record({ path, content: content(maxFileBytes) }), weight: 2 },
    // Breaking the schema.
    { arbitrary: fc.jsonValue({ maxDepth: 3 }), weight: 2 },
    { arbitrary: fc.constantFrom(null, [], 'notes.txt', 42, true, [{ path: 'notes.txt' }]), weight: 1 },
    { arbitrary: fc.record({ path: fc.jsonValue({ maxDepth: 2 }).filter((v) => typeof v !== 'string'), content: fc.oneof(fc.string(), fc.jsonValue({ maxDepth: 2 })) }), weight: 2 },
    { arbitrary: fc.record({ path, content: fc.jsonValue({ maxDepth: 2 }).filter((v) => typeof v !== 'string') }), weight: 2 },
    { arbitrary: fc.record({ path, content: fc.string(), mode: fc.constantFrom('0777', 'w', 'a') }), weight: 1 },
    { arbitrary: fc.record({ path, recursive: fc.boolean() }), weight: 1 },
    { arbitrary: fc.record({ content: fc.string() }), weight: 1 },
    { arbitrary: fc.constantFrom({}, { path: '' }, { path: 'x'.repeat(4097), content: 'x' }, { path: ['notes.txt'] }, { path: { toString: 'notes.txt' } }), weight: 1 },
    { arbitrary: fc.constant(null).map(() => JSON.parse('{"path":"notes.txt","__proto__":{"path":"../sentinel"}}') as unknown), weight: 1 },
  );
}

/** A whole call. */
export function toolCall(base: string, maxFileBytes: number): fc.Arbitrary<ToolCall> {
  return fc
    .constantFrom(...FILE_TOOLS)
    .chain((tool) => toolArguments(tool, base, maxFileBytes).map((args): ToolCall => ({ tool, arguments: args })))
    .map((call) => {
    Object.defineProperty(call, fc.toStringMethod, { value: () => `${call.tool} ${abbreviate(call.arguments)}`, enumerable: false });
    return call;
  });
}

/** A value as JSON of at most 300 characters (a counterexample's content may be megabytes). */
export function abbreviate(value: unknown): string {
  const text = JSON.stringify(value, (_key, v: unknown) => (typeof v === 'string' && v.length > 80 ? `${v.slice(0, 40)}…(${v.length} chars)` : v)) ?? String(value);
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}
