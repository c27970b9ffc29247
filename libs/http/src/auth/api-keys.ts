import { createHash, randomBytes, scryptSync } from 'node:crypto';
import { InvalidFieldError } from '@agent-ledger/domain';

/**
 * What an API key may do. A route names the scopes it accepts (any one of
 * them is enough):
 *
 * | scope | routes |
 * | --- | --- |
 * | `runs:submit` | `POST /runs`, `POST /runs/{id}/input` (the answer to a run that asked for input) |
 * | `runs:read` | `GET /runs`, `GET /runs/{id}`, `/steps`, `/events`, `GET /events`, `GET /approvals` |
 * | `runs:approve` | `POST /runs/{id}/approval` (a person's decision on the calls a run waits to have approved) |
 * | `audit:read` | `GET /audit/review` |
 * | `operate` | cancel, requeue, `GET /projections`, `GET /metrics` (and any route that declares no scope) |
 * | `metrics:read` | `GET /metrics` only (for a Prometheus scraper) |
 *
 * `runs:approve` is a scope of its own, held by none of the others (not
 * `operate` either): who may let a run's writes happen is a decision apart.
 */
export const API_SCOPES = ['runs:submit', 'runs:read', 'runs:approve', 'audit:read', 'operate', 'metrics:read'] as const;
/** One of {@link API_SCOPES}. */
export type ApiScope = (typeof API_SCOPES)[number];

/**
 * An API key as configuration holds it: never the key itself, only its hash.
 *
 * @example
 * { "id": "ci-bot", "hash": "sha256:9f86d0...", "scopes": ["runs:submit", "runs:read"], "agents": ["file-clerk"] }
 */
export interface ApiKeyEntry {
  /** A name for logs and answers (never secret): 1 to 64 letters, digits, `.`, `_`, `-`. Unique. */
  readonly id: string;
  /**
   * The key's hash, one of:
   * - `sha256:<64 hex digits>`: SHA-256 of the key's UTF-8 bytes (for long random keys);
   * - `scrypt$<salt hex>$<derived key hex>`: `crypto.scryptSync(key, Buffer.from(saltHex, 'hex'), derivedKeyHex.length / 2)`
   *   with Node's defaults (N=16384, r=8, p=1), for keys chosen by people.
   */
  readonly hash: string;
  /** What it may do (at least one). */
  readonly scopes: readonly ApiScope[];
  /** The agents whose runs it may submit and read; null: every agent. @default null */
  readonly agents: readonly string[] | null;
}

/** A parsed hash of an {@link ApiKeyEntry}. */
export type ApiKeyHash =
  | { readonly kind: 'sha256'; readonly digest: Buffer }
  | { readonly kind: 'scrypt'; readonly salt: Buffer; readonly derived: Buffer };

const ID_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;
const SHA256_PATTERN = /^sha256:([0-9a-f]{64})$/i;
const SCRYPT_PATTERN = /^scrypt\$([0-9a-f]{16,128})\$([0-9a-f]{32,128})$/i;
const ENTRY_KEYS = new Set(['id', 'hash', 'scopes', 'agents']);

/**
 * Parses a hash written as `sha256:<hex>` or `scrypt$<salt hex>$<hex>`.
 * @throws InvalidFieldError naming `field`
 */
export function parseApiKeyHash(value: unknown, field: string): ApiKeyHash {
  if (typeof value !== 'string') throw new InvalidFieldError(field, 'must be a string "sha256:<64 hex digits>" or "scrypt$<salt hex>$<hash hex>"');
  const sha = SHA256_PATTERN.exec(value);
  if (sha !== null) return { kind: 'sha256', digest: Buffer.from(sha[1] as string, 'hex') };
  const scrypt = SCRYPT_PATTERN.exec(value);
  if (scrypt !== null && (scrypt[1] as string).length % 2 === 0 && (scrypt[2] as string).length % 2 === 0) {
    return { kind: 'scrypt', salt: Buffer.from(scrypt[1] as string, 'hex'), derived: Buffer.from(scrypt[2] as string, 'hex') };
  }
  throw new InvalidFieldError(field, 'must be "sha256:<64 hex digits>" or "scrypt$<salt hex, 8 to 64 bytes>$<hash hex, 16 to 64 bytes>" (never the key itself)');
}

/**
 * Checks a list of API key entries (from `API_KEYS` or the file's `auth.apiKeys`).
 * @param field the setting's name (`API_KEYS`, `auth.apiKeys`)
 * @param where where it was read, for messages (` in config file x.yaml`)
 * @throws InvalidFieldError naming the entry's field, e.g. `API_KEYS[1].scopes`
 */
export function parseApiKeyEntries(value: unknown, field: string, where = ''): ApiKeyEntry[] {
  const fail = (at: string, problem: string) => new InvalidFieldError(at, `${where} ${problem}`.trim());
  if (!Array.isArray(value)) throw fail(field, 'must be a list of { id, hash, scopes, agents? }');
  const ids = new Set<string>();
  return value.map((raw: unknown, index): ApiKeyEntry => {
    const at = `${field}[${index}]`;
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw fail(at, 'must be an object { id, hash, scopes, agents? }');
    const entry = raw as Record<string, unknown>;
    for (const key of Object.keys(entry)) {
      if (!ENTRY_KEYS.has(key)) throw fail(`${at}.${key}`, `is not a key setting (known: ${[...ENTRY_KEYS].join(', ')})`);
    }
    if (typeof entry.id !== 'string' || !ID_PATTERN.test(entry.id)) throw fail(`${at}.id`, 'must be 1 to 64 letters, digits, ".", "_" or "-"');
    if (ids.has(entry.id)) throw fail(`${at}.id`, `must be unique ("${entry.id}" appears twice)`);
    ids.add(entry.id);
    try {
      parseApiKeyHash(entry.hash, `${at}.hash`);
    } catch (error) {
      throw error instanceof InvalidFieldError ? fail(error.field, error.problem) : error;
    }
    const scopes = entry.scopes;
    if (!Array.isArray(scopes) || scopes.length === 0) throw fail(`${at}.scopes`, `must be a non-empty list of ${API_SCOPES.join(', ')}`);
    scopes.forEach((scope: unknown, i) => {
      if (typeof scope !== 'string' || !(API_SCOPES as readonly string[]).includes(scope)) {
        throw fail(`${at}.scopes[${i}]`, `must be one of ${API_SCOPES.join(', ')} (got ${JSON.stringify(scope)})`);
      }
    });
    let agents: string[] | null = null;
    if (entry.agents !== undefined && entry.agents !== null) {
      if (!Array.isArray(entry.agents) || entry.agents.length === 0 || entry.agents.some((a) => typeof a !== 'string' || a.length === 0 || a.length > 128)) {
        throw fail(`${at}.agents`, 'must be a non-empty list of agent names (leave it out for every agent)');
      }
      agents = [...(entry.agents as string[])];
    }
    return { id: entry.id, hash: entry.hash as string, scopes: [...new Set(scopes as ApiScope[])], agents };
  });
}

/**
 * Hashes an API key for the configuration. `sha256` (the default) suits keys
 * made by {@link generateApiKey} (256 random bits); use `scrypt` for a key a
 * person chose.
 */
export function hashApiKey(key: string, kind: 'sha256' | 'scrypt' = 'sha256'): string {
  if (kind === 'sha256') return `sha256:${createHash('sha256').update(key, 'utf8').digest('hex')}`;
  const salt = randomBytes(16);
  return `scrypt$${salt.toString('hex')}$${scryptSync(key, salt, 32).toString('hex')}`;
}

/** A new random API key: 32 bytes, base64url (43 characters). */
export function generateApiKey(): string {
  return randomBytes(32).toString('base64url');
}
