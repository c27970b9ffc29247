import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigurationError } from '@agent-ledger/domain';
import type { ApiKeyLookup } from './api-key';
import { readApiKey, redactSecret } from './api-key';

const URL = 'https://api.example.com/v1';

function lookup(source: ApiKeyLookup['source'], defaultEnv?: string): ApiKeyLookup {
  return { source, defaultEnv, provider: 'openai', url: URL };
}

function thrownBy(read: () => unknown): Error {
  try {
    read();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigurationError);
    return error as Error;
  }
  throw new Error('nothing was thrown');
}

describe('readApiKey', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'api-key-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads the variable apiKeyEnv names, trimmed, and the default variable when the settings name none', () => {
    expect(readApiKey(lookup({ apiKeyEnv: 'MY_KEY' }), { MY_KEY: ' sk-1\n' })).toBe('sk-1');
    expect(readApiKey(lookup({}, 'DEFAULT_KEY'), { DEFAULT_KEY: 'sk-2' })).toBe('sk-2');
    expect(readApiKey(lookup({ apiKeyEnv: 'MY_KEY' }, 'DEFAULT_KEY'), { MY_KEY: 'sk-3', DEFAULT_KEY: 'sk-2' })).toBe('sk-3');
  });

  it('returns no key when nothing names one (a local server)', () => {
    expect(readApiKey(lookup({}), { OPENAI_API_KEY: 'sk-unused' })).toBeUndefined();
  });

  it('reads apiKeyFile, trimmed, before any variable', () => {
    const file = join(dir, 'key');
    writeFileSync(file, '\n sk-from-file \n');
    expect(readApiKey(lookup({ apiKeyFile: file }, 'DEFAULT_KEY'), { DEFAULT_KEY: 'sk-env' })).toBe('sk-from-file');
  });

  it('names the variable that is not set or blank, and says when it is the default', () => {
    expect(thrownBy(() => readApiKey(lookup({ apiKeyEnv: 'MY_KEY' }), { MY_KEY: '  ' })).message).toBe(
      `The environment variable MY_KEY (provider.apiKeyEnv) is not set: it must hold the API key of ${URL} (or name a file that holds it in provider.apiKeyFile)`,
    );
    expect(thrownBy(() => readApiKey(lookup({}, 'DEFAULT_KEY'), {})).message).toMatch(/^The environment variable DEFAULT_KEY \(the default of provider\.apiKeyEnv for type openai\) is not set/);
  });

  it('names a key file that is missing, a folder, or empty', () => {
    expect(thrownBy(() => readApiKey(lookup({ apiKeyFile: join(dir, 'none') }), {})).message).toBe(
      `The API key file ${join(dir, 'none')} (provider.apiKeyFile) of the openai provider cannot be read (ENOENT): it must hold the API key of ${URL}`,
    );
    expect(thrownBy(() => readApiKey(lookup({ apiKeyFile: dir }), {})).message).toContain('cannot be read (EISDIR)');
    const empty = join(dir, 'empty');
    writeFileSync(empty, '\n');
    expect(thrownBy(() => readApiKey(lookup({ apiKeyFile: empty }), {})).message).toContain('is empty');
  });

  it.each([
    ['a line break', 'sk-abc\ndef'],
    ['a space', 'sk-abc def'],
    ['a non-ASCII character', 'sk-abc\u2026def'],
  ])('refuses a key with %s (fetch would quote it in its error), never repeating the key', (_what, key) => {
    const error = thrownBy(() => readApiKey(lookup({ apiKeyEnv: 'MY_KEY' }), { MY_KEY: key }));
    expect(error.message).toBe(
      'The API key in the environment variable MY_KEY has a character an HTTP header cannot carry (a space, a line break or a non-ASCII character) at position 7: set the key again, as the vendor gave it',
    );
    expect(error.message).not.toContain('abc');
  });
});

describe('redactSecret', () => {
  it('replaces every occurrence of the secret, and leaves a text as it is without one', () => {
    expect(redactSecret('key sk-1 and sk-1 again', 'sk-1')).toBe('key [redacted] and [redacted] again');
    expect(redactSecret('nothing to hide', undefined)).toBe('nothing to hide');
    expect(redactSecret('nothing to hide', '')).toBe('nothing to hide');
  });
});
