import { hintedEffect, resolveExternalToolEffect, stricterEffect } from './external-tool-effect';
import type { ToolEffectHints } from './external-tool-effect';
import type { ToolEffect } from './tool-effect';

describe('hintedEffect', () => {
  it.each<[ToolEffectHints | undefined, ToolEffect | null]>([
    [undefined, null],
    [{}, null],
    [{ readOnlyHint: true }, 'READ_ONLY'],
    [{ readOnlyHint: true, idempotentHint: false, destructiveHint: true }, 'READ_ONLY'],
    [{ readOnlyHint: false }, 'NON_IDEMPOTENT_WRITE'],
    [{ readOnlyHint: false, idempotentHint: true }, 'IDEMPOTENT_WRITE'],
    [{ idempotentHint: true }, 'IDEMPOTENT_WRITE'],
    [{ destructiveHint: false }, 'NON_IDEMPOTENT_WRITE'],
    [{ readOnlyHint: false, destructiveHint: true, idempotentHint: false }, 'NON_IDEMPOTENT_WRITE'],
  ])('%j gives %s', (hints, effect) => {
    expect(hintedEffect(hints)).toBe(effect);
  });
});

describe('stricterEffect', () => {
  it('orders READ_ONLY < IDEMPOTENT_WRITE < NON_IDEMPOTENT_WRITE', () => {
    expect(stricterEffect('READ_ONLY', 'IDEMPOTENT_WRITE')).toBe('IDEMPOTENT_WRITE');
    expect(stricterEffect('NON_IDEMPOTENT_WRITE', 'IDEMPOTENT_WRITE')).toBe('NON_IDEMPOTENT_WRITE');
    expect(stricterEffect('READ_ONLY', 'READ_ONLY')).toBe('READ_ONLY');
  });
});

describe('resolveExternalToolEffect', () => {
  const READ = { readOnlyHint: true };
  const IDEMPOTENT = { readOnlyHint: false, idempotentHint: true };
  it.each<[ToolEffect | undefined, ToolEffectHints | undefined, boolean, ToolEffect, string, boolean]>([
    // declared, no hint
    ['READ_ONLY', undefined, false, 'READ_ONLY', 'declared', false],
    ['IDEMPOTENT_WRITE', {}, true, 'IDEMPOTENT_WRITE', 'declared', false],
    // declared and hinted alike
    ['READ_ONLY', READ, false, 'READ_ONLY', 'declared', false],
    // a hint stricter than the declaration wins when untrusted
    ['READ_ONLY', IDEMPOTENT, false, 'IDEMPOTENT_WRITE', 'hint', true],
    // a hint looser than the declaration never loosens it when untrusted
    ['NON_IDEMPOTENT_WRITE', READ, false, 'NON_IDEMPOTENT_WRITE', 'declared', true],
    // trusted hints decide, either way
    ['NON_IDEMPOTENT_WRITE', READ, true, 'READ_ONLY', 'hint', true],
    ['READ_ONLY', IDEMPOTENT, true, 'IDEMPOTENT_WRITE', 'hint', true],
    // nothing declared: the safe default, unless the hints are trusted
    [undefined, undefined, false, 'NON_IDEMPOTENT_WRITE', 'default', false],
    [undefined, READ, false, 'NON_IDEMPOTENT_WRITE', 'default', false],
    [undefined, undefined, true, 'NON_IDEMPOTENT_WRITE', 'default', false],
    [undefined, READ, true, 'READ_ONLY', 'hint', false],
  ])('declared %s, hints %j, trusted %s: %s from %s (conflict %s)', (declared, hints, trusted, effect, source, conflict) => {
    expect(resolveExternalToolEffect(declared, hints, trusted)).toEqual({
      effect,
      source,
      conflict,
      declared: declared ?? null,
      hinted: hintedEffect(hints),
      trusted,
    });
  });
});
