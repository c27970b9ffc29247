import { InvalidStreamNameError } from './port/errors/invalid-stream-name.error';

/** Longest accepted stream name, in characters. */
export const MAX_STREAM_NAME_LENGTH = 256;

const CATEGORY = /^[A-Za-z][A-Za-z0-9_.]*$/;
// No whitespace, no control characters (C0, DEL, C1), no line or paragraph separators.
// eslint-disable-next-line no-control-regex
const FORBIDDEN_IN_ID = /[\s\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

/** The two parts of a stream name. */
export interface StreamNameParts {
  /** Everything before the first dash: letters, digits, `_` and `.`, starting with a letter. */
  readonly category: string;
  /** Everything after the first dash: non-empty, may contain dashes (UUIDs), no whitespace or control characters. */
  readonly id: string;
}

function problem(category: unknown, id: unknown): string | undefined {
  if (typeof category !== 'string' || category.length === 0) return 'the category is empty';
  if (category.includes('-')) return 'the category must not contain a dash';
  if (!CATEGORY.test(category)) {
    return 'the category must start with a letter and hold only letters, digits, "_" and "."';
  }
  if (typeof id !== 'string' || id.length === 0) return 'the id is empty';
  if (FORBIDDEN_IN_ID.test(id)) return 'the id must not contain whitespace or control characters';
  if (category.length + 1 + id.length > MAX_STREAM_NAME_LENGTH) {
    return `the name is longer than ${MAX_STREAM_NAME_LENGTH} characters`;
  }
  return undefined;
}

/**
 * Builds the name of a stream: `<category>-<id>`, e.g. `streamName('run', runId)`
 * gives `run-<runId>`. The one place stream names are made, so that
 * EventStoreDB's `$ce-<category>` projection (split at the first dash) finds
 * the category.
 *
 * @throws InvalidStreamNameError when the category is empty, contains a dash or
 *   a character other than letters, digits, `_`, `.` (or does not start with a
 *   letter), or the id is empty or contains whitespace or control characters,
 *   or the whole name is longer than {@link MAX_STREAM_NAME_LENGTH}.
 */
export function streamName(category: string, id: string): string {
  const reason = problem(category, id);
  if (reason !== undefined) throw new InvalidStreamNameError(`${String(category)}-${String(id)}`, reason);
  return `${category}-${id}`;
}

/**
 * Splits a stream name at its first dash.
 * @throws InvalidStreamNameError when `name` is not a valid `<category>-<id>`.
 */
export function parseStreamName(name: string): StreamNameParts {
  if (typeof name !== 'string' || name.length === 0) {
    throw new InvalidStreamNameError(String(name), 'the name is empty');
  }
  const dash = name.indexOf('-');
  if (dash < 0) throw new InvalidStreamNameError(name, 'expected <category>-<id>: there is no dash');
  const category = name.slice(0, dash);
  const id = name.slice(dash + 1);
  const reason = problem(category, id);
  if (reason !== undefined) throw new InvalidStreamNameError(name, reason);
  return { category, id };
}

/** Whether `name` is a valid `<category>-<id>` stream name. */
export function isValidStreamName(name: string): boolean {
  try {
    parseStreamName(name);
    return true;
  } catch {
    return false;
  }
}

/**
 * Checks a stream name and returns it.
 * @throws InvalidStreamNameError when `name` is not a valid `<category>-<id>`.
 */
export function assertValidStreamName(name: string): string {
  parseStreamName(name);
  return name;
}
