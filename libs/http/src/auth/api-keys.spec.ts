import { DEVELOPMENT_CALLER } from '../auth/api-caller';
import { API_SCOPES, hashApiKey, parseApiKeyEntries } from './api-keys';

describe('API key scopes', () => {
  const hash = hashApiKey('k');

  it('has runs:approve, a scope of its own beside the others', () => {
    expect(API_SCOPES).toEqual(['runs:submit', 'runs:read', 'runs:approve', 'audit:read', 'operate', 'metrics:read']);
  });

  it('accepts a key with runs:approve, limited to some agents or not', () => {
    expect(parseApiKeyEntries([{ id: 'reviewer', hash, scopes: ['runs:approve', 'runs:read'], agents: ['file-clerk'] }], 'API_KEYS')).toEqual([
      { id: 'reviewer', hash, scopes: ['runs:approve', 'runs:read'], agents: ['file-clerk'] },
    ]);
    expect(parseApiKeyEntries([{ id: 'approver', hash, scopes: ['runs:approve'] }], 'API_KEYS')[0]?.agents).toBeNull();
  });

  it('names every scope when one is unknown', () => {
    expect(() => parseApiKeyEntries([{ id: 'a', hash, scopes: ['runs:decide'] }], 'API_KEYS')).toThrow(
      expect.objectContaining({ field: 'API_KEYS[0].scopes[0]', message: expect.stringContaining('runs:approve') as string }) as Error,
    );
  });

  it('gives the development caller every scope, runs:approve included', () => {
    expect(DEVELOPMENT_CALLER.scopes).toEqual(API_SCOPES);
    expect(DEVELOPMENT_CALLER.scopes).toContain('runs:approve');
  });
});
