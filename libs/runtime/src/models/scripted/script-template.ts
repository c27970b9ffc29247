/**
 * The placeholders of a scripted agent's texts (a `final` answer, a string in
 * a tool call's arguments), filled from the run's conversation so far:
 *
 * - `{{result:CALL}}`, `{{result:CALL/a/b}}`: the recorded result of an
 *   earlier call that succeeded (or the value at that path in it: object keys
 *   and array indexes, separated by `/`); a string as it is, other JSON as JSON text;
 * - `{{outcome:CALL}}`: `succeeded`, `failed` or `denied` (a person denied it);
 * - `{{error:CALL}}`: the error message the model was shown for a call that
 *   failed or was denied.
 *
 * `CALL` is a tool name (its latest call in an earlier round) or `R.I`
 * (round R, call I, from 0, as `script[R].toolCalls[I]`). `{{` always opens a
 * placeholder: any other use of it is refused, never left in the text;
 * `{{{{` is a literal `{{`.
 */
import type { JsonValue } from '@agent-ledger/domain';
import type { ScriptedRound } from '../../agents/agent-definition';
import { TOOL_NAME_PATTERN } from '../../tools/tool-metadata';

/** What a placeholder stands for. */
export const SCRIPT_PLACEHOLDER_KINDS = ['result', 'outcome', 'error'] as const;

/** One of {@link SCRIPT_PLACEHOLDER_KINDS}. */
export type ScriptPlaceholderKind = (typeof SCRIPT_PLACEHOLDER_KINDS)[number];

/** The call a placeholder refers to: the latest call of a tool, or a call by its round and index. */
export type ScriptCallRef = { readonly tool: string } | { readonly round: number; readonly callIndex: number };

/** A placeholder, parsed. */
export interface ScriptPlaceholder {
  /** As written, e.g. `{{result:files.read/content}}`. */
  readonly text: string;
  readonly kind: ScriptPlaceholderKind;
  readonly call: ScriptCallRef;
  /** Keys and indexes into a `result`; empty for the whole. */
  readonly path: readonly string[];
}

/** A text cut into literal parts and placeholders. */
export type ScriptTemplate = readonly (string | ScriptPlaceholder)[];

/** A text that is not a valid template: what is wrong with it. */
export interface ScriptTemplateProblem {
  readonly problem: string;
}

const POSITION = /^(\d{1,4})\.(\d{1,4})$/;
/** How a script writes a literal `{{`. */
const ESCAPED_OPEN = '{{{{';
const SYNTAX = '{{result:CALL}}, {{result:CALL/key/...}}, {{outcome:CALL}} or {{error:CALL}}, where CALL is a tool name or ROUND.INDEX';

/** Parses a text's placeholders; a malformed or unknown one is a problem that quotes it. */
export function parseScriptTemplate(text: string): ScriptTemplate | ScriptTemplateProblem {
  const parts: (string | ScriptPlaceholder)[] = [];
  let literal = '';
  let at = 0;
  for (;;) {
    const open = text.indexOf('{{', at);
    if (open < 0) break;
    literal += text.slice(at, open);
    if (text.startsWith(ESCAPED_OPEN, open)) {
      literal += '{{';
      at = open + ESCAPED_OPEN.length;
      continue;
    }
    const close = text.indexOf('}}', open + 2);
    if (close < 0) return { problem: `has "{{" without a closing "}}" (${quote(text.slice(open, open + 40))}): a placeholder is ${SYNTAX}; write {{{{ for a literal {{` };
    const placeholder = parsePlaceholder(text.slice(open, close + 2));
    if ('problem' in placeholder) return placeholder;
    if (literal !== '') parts.push(literal);
    literal = '';
    parts.push(placeholder);
    at = close + 2;
  }
  literal += text.slice(at);
  if (literal !== '') parts.push(literal);
  return parts;
}

/**
 * A text made safe to play as it is in a script: every `{{` written as
 * `{{{{`, which a script reads as a literal `{{` (for text built in code,
 * e.g. a template the agent writes to a file).
 */
export function escapeScriptText(text: string): string {
  return text.replaceAll('{{', ESCAPED_OPEN);
}

function parsePlaceholder(written: string): ScriptPlaceholder | ScriptTemplateProblem {
  const inner = written.slice(2, -2);
  const colon = inner.indexOf(':');
  const kind = colon < 0 ? inner : inner.slice(0, colon);
  if (!(SCRIPT_PLACEHOLDER_KINDS as readonly string[]).includes(kind) || colon < 0) {
    return { problem: `has the unknown placeholder ${quote(written)}: a placeholder is ${SYNTAX}; write {{{{ for a literal {{` };
  }
  const [callText = '', ...path] = inner.slice(colon + 1).split('/');
  const position = POSITION.exec(callText);
  let call: ScriptCallRef;
  if (position !== null) call = { round: Number(position[1]), callIndex: Number(position[2]) };
  else if (TOOL_NAME_PATTERN.test(callText)) call = { tool: callText };
  else return { problem: `has ${quote(written)}, whose call ${quote(callText)} is neither a tool name nor ROUND.INDEX (e.g. 0.0)` };
  if (path.some((key) => key === '')) return { problem: `has ${quote(written)}, whose path has an empty key` };
  if (path.length > 0 && kind !== 'result') return { problem: `has ${quote(written)}: only {{result:...}} takes a path` };
  return { text: written, kind: kind as ScriptPlaceholderKind, call, path };
}

/** One problem of a script's placeholders, at a path under `script` (`[3].final`). */
export interface ScriptTemplateIssue {
  /** From the script, e.g. `[1].toolCalls[0].arguments.content`. */
  readonly path: string;
  /** The round (0-based). */
  readonly round: number;
  readonly message: string;
}

/**
 * Every problem of a script's placeholders that is known before a run: a
 * malformed or unknown placeholder, a reference to a round that is not
 * earlier, to a call the script's round does not have, to a tool that no
 * earlier round calls.
 */
export function scriptTemplateIssues(script: readonly ScriptedRound[]): ScriptTemplateIssue[] {
  const issues: ScriptTemplateIssue[] = [];
  script.forEach((round, index) => {
    for (const [path, text] of textsOf(round)) {
      const template = parseScriptTemplate(text);
      if ('problem' in template) {
        issues.push({ path: `[${index}]${path}`, round: index, message: template.problem });
        continue;
      }
      for (const part of template) {
        if (typeof part === 'string') continue;
        const problem = referenceProblem(script, index, part);
        if (problem !== undefined) issues.push({ path: `[${index}]${path}`, round: index, message: problem });
      }
    }
  });
  return issues;
}

function referenceProblem(script: readonly ScriptedRound[], round: number, placeholder: ScriptPlaceholder): string | undefined {
  const { call } = placeholder;
  if ('tool' in call) {
    const called = script.slice(0, round).some((r) => 'toolCalls' in r && r.toolCalls.some((c) => c.tool === call.tool));
    return called ? undefined : `has ${quote(placeholder.text)}, but no earlier round calls ${call.tool}`;
  }
  if (call.round >= round) return `has ${quote(placeholder.text)}, which refers to round ${call.round}: only an earlier round's calls have results`;
  const target = script[call.round];
  if (target === undefined || !('toolCalls' in target) || target.toolCalls[call.callIndex] === undefined) {
    return `has ${quote(placeholder.text)}, but round ${call.round} of the script has no call ${call.callIndex}`;
  }
  return undefined;
}

/** The texts of a round that may hold placeholders, with their paths under the round. */
export function textsOf(round: ScriptedRound): [string, string][] {
  if ('final' in round) {
    const texts: [string, string][] = [['.final', round.final]];
    if (round.finalIfDenied !== undefined) texts.push(['.finalIfDenied', round.finalIfDenied]);
    if (round.finalIfFailed !== undefined) texts.push(['.finalIfFailed', round.finalIfFailed]);
    return texts;
  }
  const texts: [string, string][] = [];
  round.toolCalls.forEach((call, index) => collectStrings(call.arguments, `.toolCalls[${index}].arguments`, texts));
  return texts;
}

function collectStrings(value: unknown, path: string, into: [string, string][]): void {
  if (typeof value === 'string') into.push([path, value]);
  else if (Array.isArray(value)) value.forEach((item, i) => collectStrings(item, `${path}[${i}]`, into));
  else if (typeof value === 'object' && value !== null) {
    for (const [key, child] of Object.entries(value)) collectStrings(child, /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`, into);
  }
}

/** What a call's recorded result says, as a placeholder reads it. */
export interface RecordedCall {
  readonly toolName: string;
  readonly round: number;
  readonly callIndex: number;
  /** Null when the conversation has no result for it. */
  readonly outcome: 'succeeded' | 'failed' | 'denied' | null;
  /** The result (succeeded) or the error content (failed, denied) the model was shown. */
  readonly content: JsonValue;
}

/** The value a placeholder stands for, or why it has none. */
export function fillPlaceholder(placeholder: ScriptPlaceholder, calls: readonly RecordedCall[]): { value: string } | ScriptTemplateProblem {
  const { call } = placeholder;
  const found =
    'tool' in call
      ? calls.filter((c) => c.toolName === call.tool).at(-1)
      : calls.find((c) => c.round === call.round && c.callIndex === call.callIndex);
  if (found === undefined) return { problem: 'the run has no such call' };
  const named = `${found.toolName} (round ${found.round}, call ${found.callIndex})`;
  if (found.outcome === null) return { problem: `${named} has no recorded result` };
  switch (placeholder.kind) {
    case 'outcome':
      return { value: found.outcome };
    case 'error':
      if (found.outcome === 'succeeded') return { problem: `${named} succeeded, so it has no error` };
      return { value: errorText(found.content) };
    case 'result': {
      if (found.outcome !== 'succeeded') return { problem: `${named} ${found.outcome === 'denied' ? 'was denied by a person' : 'failed'}, so it has no result (${errorText(found.content)})` };
      let value: JsonValue | undefined = found.content;
      for (const key of placeholder.path) {
        value = valueAt(value, key);
        if (value === undefined) return { problem: `the result of ${named} has nothing at /${placeholder.path.join('/')}` };
      }
      return { value: typeof value === 'string' ? value : JSON.stringify(value) };
    }
  }
}

function valueAt(value: JsonValue | undefined, key: string): JsonValue | undefined {
  if (Array.isArray(value)) return /^\d+$/.test(key) ? value[Number(key)] : undefined;
  if (typeof value === 'object' && value !== null && Object.hasOwn(value, key)) return (value as Record<string, JsonValue>)[key];
  return undefined;
}

function errorText(content: JsonValue): string {
  const error = typeof content === 'object' && content !== null && !Array.isArray(content) ? (content as Record<string, JsonValue>)['error'] : undefined;
  if (typeof error === 'string') return error;
  return typeof content === 'string' ? content : JSON.stringify(content);
}

function quote(text: string): string {
  return JSON.stringify(text);
}
