import { createHash, scryptSync } from 'node:crypto';
import type { HttpApiOptions } from '../http-api-options';
import { generateApiKey, hashApiKey } from './api-keys';
import { ApiKeyVerifier } from './api-key-verifier';

function verifierOf(entries: Array<{ id: string; hash: string }>): ApiKeyVerifier {
  const apiKeys = entries.map((e) => ({ ...e, scopes: ['runs:read' as const], agents: null }));
  return new ApiKeyVerifier({ auth: { mode: 'api-keys', modeSource: 'default', apiKeys } } as unknown as HttpApiOptions);
}

describe('ApiKeyVerifier', () => {
  it('finds the entry of a key hashed with sha256 (the documented format: SHA-256 of the UTF-8 bytes, hex)', async () => {
    const key = generateApiKey();
    expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const hash = `sha256:${createHash('sha256').update(key, 'utf8').digest('hex')}`;
    expect(hashApiKey(key)).toBe(hash);
    const verifier = verifierOf([{ id: 'other', hash: hashApiKey('other') }, { id: 'mine', hash }]);
    expect(await verifier.verify(key)).toMatchObject({ id: 'mine' });
    expect(await verifier.verify(`${key}x`)).toBeNull();
    expect(await verifier.verify('')).toBeNull();
  });

  it('finds the entry of a key hashed with scrypt (salt hex, derived key hex, Node defaults), and remembers it', async () => {
    const salt = Buffer.from('00112233445566778899aabbccddeeff', 'hex');
    const hash = `scrypt$${salt.toString('hex')}$${scryptSync('correct horse', salt, 32).toString('hex')}`;
    const verifier = verifierOf([{ id: 'person', hash }, { id: 'generated', hash: hashApiKey('correct horse battery', 'scrypt') }]);
    expect(await verifier.verify('correct horse')).toMatchObject({ id: 'person' });
    expect(await verifier.verify('correct horse')).toMatchObject({ id: 'person' });
    expect(await verifier.verify('correct horse battery')).toMatchObject({ id: 'generated' });
    expect(await verifier.verify('wrong')).toBeNull();
  });
});
