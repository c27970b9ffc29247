import { createHash, scrypt, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { ApiKeyEntry, ApiKeyHash } from './api-keys';
import { parseApiKeyHash } from './api-keys';
import type { HttpApiOptions } from '../http-api-options';
import { HTTP_API_OPTIONS } from '../http-api-options';

/** The longest key looked at; longer is refused without hashing. */
const MAX_KEY_LENGTH = 512;
/** The most scrypt matches remembered (by the SHA-256 of the key), so a key is derived once, not on every request. */
const SCRYPT_CACHE_SIZE = 1000;

function scryptAsync(key: string, salt: Buffer, length: number): Promise<Buffer> {
  return new Promise((resolve, reject) => scrypt(key, salt, length, (error, derived) => (error ? reject(error) : resolve(derived))));
}

/**
 * Finds the configured key a presented key matches, comparing hashes in
 * constant time (`timingSafeEqual`). Every `sha256:` entry is compared, match
 * or not; `scrypt$` entries are derived with the entry's salt (asynchronously,
 * on the thread pool), and a match is remembered by the key's SHA-256.
 */
@Injectable()
export class ApiKeyVerifier {
  private readonly entries: ReadonlyArray<{ readonly entry: ApiKeyEntry; readonly hash: ApiKeyHash }>;
  private readonly scryptMatches = new Map<string, ApiKeyEntry>();

  constructor(@Inject(HTTP_API_OPTIONS) config: HttpApiOptions) {
    this.entries = config.auth.apiKeys.map((entry) => ({ entry, hash: parseApiKeyHash(entry.hash, entry.id) }));
  }

  /** The entry `key` matches, or null. */
  async verify(key: string): Promise<ApiKeyEntry | null> {
    if (key.length === 0 || key.length > MAX_KEY_LENGTH) return null;
    const digest = createHash('sha256').update(key, 'utf8').digest();
    let found: ApiKeyEntry | null = null;
    for (const { entry, hash } of this.entries) {
      if (hash.kind === 'sha256' && timingSafeEqual(hash.digest, digest) && found === null) found = entry;
    }
    if (found !== null) return found;
    const remembered = this.scryptMatches.get(digest.toString('hex'));
    if (remembered !== undefined) return remembered;
    for (const { entry, hash } of this.entries) {
      if (hash.kind !== 'scrypt') continue;
      const derived = await scryptAsync(key, hash.salt, hash.derived.length);
      if (timingSafeEqual(derived, hash.derived)) {
        if (this.scryptMatches.size >= SCRYPT_CACHE_SIZE) this.scryptMatches.clear();
        this.scryptMatches.set(digest.toString('hex'), entry);
        return entry;
      }
    }
    return null;
  }
}
