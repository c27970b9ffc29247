import { permissionsOf } from './permissions';

describe('permissionsOf', () => {
  it('maps each scope to what it allows, and nothing more', () => {
    expect(permissionsOf({ scopes: ['audit:read', 'runs:read'], agents: null })).toEqual({
      readRuns: true,
      submitRuns: false,
      approve: false,
      readAudit: true,
      operate: false,
      streamAllRuns: true,
    });
    // operate does not imply approving: only runs:approve does.
    expect(permissionsOf({ scopes: ['operate'], agents: null })).toMatchObject({ operate: true, approve: false, readRuns: false });
  });

  it('a key limited to some agents may not stream every run', () => {
    expect(permissionsOf({ scopes: ['runs:read', 'runs:submit'], agents: ['clerk'] })).toMatchObject({ readRuns: true, streamAllRuns: false });
  });
});
