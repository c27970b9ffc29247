import { InvalidFieldError } from '../errors/invalid-field.error';
import { resolveRunPolicy } from '../run/run-policy';
import { isSafeToRetry, isWrite, TOOL_EFFECTS, ToolEffect } from './tool-effect';
import type { DeclaresToolEffect } from './tool-effect-declaration';
import { effectOf, ToolEffectResolver } from './tool-effect-resolver';

class ClockTool {
  readonly name = 'clock.now';
}

class WriteFileTool implements DeclaresToolEffect {
  readonly name = 'files.write';
  getEffect() {
    return ToolEffect.IDEMPOTENT_WRITE;
  }
}

class AppendFileTool implements DeclaresToolEffect {
  readonly name = 'files.append';
  getEffect() {
    return ToolEffect.NON_IDEMPOTENT_WRITE;
  }
}

describe('ToolEffect', () => {
  it('has exactly three values', () => {
    expect(TOOL_EFFECTS).toEqual(['READ_ONLY', 'IDEMPOTENT_WRITE', 'NON_IDEMPOTENT_WRITE']);
  });

  it.each([
    ['READ_ONLY', false, true],
    ['IDEMPOTENT_WRITE', true, true],
    ['NON_IDEMPOTENT_WRITE', true, false],
  ] as const)('%s: isWrite %s, isSafeToRetry %s', (effect, write, safe) => {
    expect(isWrite(effect)).toBe(write);
    expect(isSafeToRetry(effect)).toBe(safe);
  });
});

describe('effect resolution by instance', () => {
  it('treats a tool that declares nothing as READ_ONLY', () => {
    expect(effectOf(new ClockTool())).toBe('READ_ONLY');
  });

  it('returns what a tool declares in code', () => {
    expect(effectOf(new WriteFileTool())).toBe('IDEMPOTENT_WRITE');
    expect(effectOf(new AppendFileTool())).toBe('NON_IDEMPOTENT_WRITE');
  });

  it('refuses a declaration that is not one of the three effects', () => {
    const tool = { name: 'odd', getEffect: () => 'MOSTLY_HARMLESS' };
    expect(() => effectOf(tool)).toThrow(InvalidFieldError);
  });
});

describe('effect resolution by name', () => {
  const resolver = new ToolEffectResolver([new ClockTool(), new WriteFileTool(), new AppendFileTool()]);

  it('resolves registered tools to their declared effect', () => {
    expect(resolver.effectFor('clock.now')).toBe('READ_ONLY');
    expect(resolver.effectFor('files.write')).toBe('IDEMPOTENT_WRITE');
    expect(resolver.effectFor('files.append')).toBe('NON_IDEMPOTENT_WRITE');
  });

  it('resolves an unknown (removed or renamed) tool to NON_IDEMPOTENT_WRITE', () => {
    expect(resolver.has('files.delete')).toBe(false);
    expect(resolver.effectFor('files.delete')).toBe('NON_IDEMPOTENT_WRITE');
  });

  it('refuses two tools with one name, so that one cannot shadow the other\'s effect', () => {
    const shadow = { name: 'files.append' };
    expect(() => new ToolEffectResolver([new AppendFileTool(), shadow])).toThrow(/must be unique/);
  });
});

describe('no configuration path changes a tool\'s effect', () => {
  it('ignores an effect given as data next to the code\'s declaration', () => {
    const relabelled = Object.assign(new AppendFileTool(), { effect: 'READ_ONLY', toolEffect: 'READ_ONLY' });
    expect(new ToolEffectResolver([relabelled]).effectFor('files.append')).toBe('NON_IDEMPOTENT_WRITE');
  });

  it('reads the declaration once, at registration: a tool cannot change its answer later', () => {
    let effect: ToolEffect = ToolEffect.NON_IDEMPOTENT_WRITE;
    const fickle: DeclaresToolEffect & { name: string } = { name: 'fickle', getEffect: () => effect };
    const resolver = new ToolEffectResolver([fickle]);
    effect = ToolEffect.READ_ONLY;
    expect(resolver.effectFor('fickle')).toBe('NON_IDEMPOTENT_WRITE');
  });

  it('offers no member that sets or overrides an effect', () => {
    expect(Object.getOwnPropertyNames(ToolEffectResolver.prototype).sort()).toEqual(['constructor', 'effectFor', 'has']);
    // The constructor's only parameter is the tools themselves.
    expect(ToolEffectResolver.length).toBe(1);
  });

  it('refuses effect settings among the operator\'s run options, naming them', () => {
    for (const key of ['toolEffects', 'effect', 'effectOverrides']) {
      expect(() => resolveRunPolicy({ [key]: { 'files.append': 'READ_ONLY' } } as never)).toThrow(
        expect.objectContaining({ field: key }) as Error,
      );
    }
  });
});
