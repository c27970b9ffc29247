/**
 * Test support for the authentication, metrics and OpenAPI end-to-end tests:
 * API keys with their configuration entries, requests with a key, and a
 * strict parser of the Prometheus text format.
 */
import { generateApiKey, hashApiKey } from '../../../libs/http/src/auth/api-keys';
import type { JsonAnswer } from './http-service';
import { request } from './http-service';

/** A key the test holds, and the entry the service is configured with. */
export interface TestKey {
  readonly key: string;
  readonly entry: { readonly id: string; readonly hash: string; readonly scopes: readonly string[]; readonly agents?: readonly string[] };
}

/** A key hashed with `sha256:` (or `scrypt$`), as the README tells operators to. */
export function testKey(id: string, scopes: readonly string[], options: { readonly agents?: readonly string[]; readonly scrypt?: boolean } = {}): TestKey {
  const key = generateApiKey();
  const hash = hashApiKey(key, options.scrypt === true ? 'scrypt' : 'sha256');
  return { key, entry: { id, hash, scopes, ...(options.agents === undefined ? {} : { agents: options.agents }) } };
}

/** `API_KEYS` for these keys. */
export function apiKeysEnv(keys: readonly TestKey[]): string {
  return JSON.stringify(keys.map((k) => k.entry));
}

/** A JSON request with `Authorization: Bearer <key>` (no header when `key` is null). */
export function withKey(baseUrl: string, key: TestKey | string | null) {
  const headers = (): Record<string, string> => (key === null ? {} : { authorization: `Bearer ${typeof key === 'string' ? key : key.key}` });
  return {
    get: <T = unknown>(path: string): Promise<JsonAnswer<T>> => request<T>(baseUrl, 'GET', path, undefined, headers()),
    post: <T = unknown>(path: string, body?: unknown): Promise<JsonAnswer<T>> => request<T>(baseUrl, 'POST', path, body, headers()),
    headers,
  };
}

/** One sample of a scrape. */
export interface PromSample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{((?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\[\\"n])*",?)*)\})? (-?[0-9.e+-]+|NaN|\+Inf|-Inf)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"/g;

/**
 * Parses the Prometheus text format strictly: every line is a `# HELP`, a
 * `# TYPE` (counter or gauge) before its samples, or a sample; the text ends
 * with a newline. Throws on the first line that is none of these.
 */
export function parsePrometheusText(text: string): PromSample[] {
  if (!text.endsWith('\n')) throw new Error('The scrape does not end with a newline');
  const types = new Map<string, string>();
  const samples: PromSample[] = [];
  for (const line of text.slice(0, -1).split('\n')) {
    const type = /^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge)$/.exec(line);
    if (type !== null) {
      if (types.has(type[1] as string)) throw new Error(`TYPE twice: ${line}`);
      types.set(type[1] as string, type[2] as string);
      continue;
    }
    if (/^# HELP [a-zA-Z_:][a-zA-Z0-9_:]* .*$/.test(line)) continue;
    const sample = SAMPLE.exec(line);
    if (sample === null) throw new Error(`Not a Prometheus line: ${JSON.stringify(line)}`);
    const name = sample[1] as string;
    if (!types.has(name)) throw new Error(`A sample without its TYPE: ${line}`);
    if (types.get(name) === 'counter' && !name.endsWith('_total')) throw new Error(`A counter not named *_total: ${name}`);
    const labels: Record<string, string> = {};
    for (const match of (sample[2] ?? '').matchAll(LABEL)) labels[match[1] as string] = (match[2] as string).replace(/\\n/g, '\n').replace(/\\"/g, '"').replace(/\\\\/g, '\\');
    samples.push({ name, labels, value: Number(sample[3]) });
  }
  return samples;
}

/** The value of the one sample named `name` whose labels include `labels`, or undefined. */
export function sampleValue(samples: readonly PromSample[], name: string, labels: Readonly<Record<string, string>> = {}): number | undefined {
  return samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
}
