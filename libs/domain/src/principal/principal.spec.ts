import { InvalidFieldError } from '../errors/invalid-field.error';
import { apiKeyPrincipal, assertPrincipal, busPrincipal, DEVELOPMENT_PRINCIPAL, principalLabel } from './principal';

describe('Principal', () => {
  it('labels each kind distinctly', () => {
    expect(principalLabel(apiKeyPrincipal('ops'))).toBe('key:ops');
    expect(principalLabel(DEVELOPMENT_PRINCIPAL)).toBe('development');
    expect(principalLabel(busPrincipal('ops'))).toBe('bus:ops');
    expect(principalLabel({ kind: 'unverified', name: 'ops' })).toBe('unverified:ops');
  });

  it.each([
    [apiKeyPrincipal('ops')],
    [busPrincipal('billing-service')],
    [DEVELOPMENT_PRINCIPAL],
  ])('accepts %j', (value) => {
    expect(() => assertPrincipal(value, 'principal')).not.toThrow();
  });

  it.each([
    ['a string', 'someone-else', 'principal'],
    ['null', null, 'principal'],
    ['an array', [], 'principal'],
    ['an unknown kind', { kind: 'root', id: 'x' }, 'principal.kind'],
    ['unverified (only read from old events)', { kind: 'unverified', name: 'x' }, 'principal.kind'],
    ['an empty id', { kind: 'apiKey', id: ' ' }, 'principal.id'],
    ['a missing id', { kind: 'bus' }, 'principal.id'],
    ['an extra field', { kind: 'bus', id: 'x', name: 'y' }, 'principal'],
    ['development with an id', { kind: 'development', id: 'x' }, 'principal'],
  ])('refuses %s, naming the field', (_label, value, field) => {
    let error: unknown;
    try {
      assertPrincipal(value, 'principal');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InvalidFieldError);
    expect((error as InvalidFieldError).field).toBe(field);
  });
});
