import { OPENAI_FUNCTION_NAME_PATTERN, OpenAiToolNames } from './openai-tool-names';

describe('OpenAiToolNames', () => {
  it('maps each "." to "__" and back', () => {
    const names = new OpenAiToolNames(['files.read', 'clock.now', 'plain_name', 'with-dash']);
    expect(names.toWire('files.read')).toBe('files__read');
    expect(names.toWire('clock.now')).toBe('clock__now');
    expect(names.toWire('plain_name')).toBe('plain_name');
    expect(names.toWire('with-dash')).toBe('with-dash');
    for (const name of ['files.read', 'clock.now', 'plain_name', 'with-dash']) {
      expect(names.fromWire(names.toWire(name))).toBe(name);
    }
  });

  it('keeps a tool whose own name contains "__" exact, when nothing collides with it', () => {
    const names = new OpenAiToolNames(['my__tool']);
    expect(names.fromWire(names.toWire('my__tool'))).toBe('my__tool');
  });

  it('gives two names that would collide distinct, valid, reversible wire names', () => {
    const names = new OpenAiToolNames(['a__b', 'a.b']);
    const wire = ['a.b', 'a__b'].map((name) => names.toWire(name));
    expect(new Set(wire).size).toBe(2);
    for (const w of wire) expect(w).toMatch(OPENAI_FUNCTION_NAME_PATTERN);
    expect(names.fromWire(names.toWire('a.b'))).toBe('a.b');
    expect(names.fromWire(names.toWire('a__b'))).toBe('a__b');
  });

  it('is independent of the order the names come in', () => {
    const one = new OpenAiToolNames(['a.b', 'a__b']);
    const other = new OpenAiToolNames(['a__b', 'a.b']);
    expect(one.toWire('a.b')).toBe(other.toWire('a.b'));
    expect(one.toWire('a__b')).toBe(other.toWire('a__b'));
  });

  it('shortens a name longer than 64 characters once mapped, reversibly', () => {
    const long = `${'x.'.repeat(31)}yz`; // 64 characters, 95 once mapped
    const names = new OpenAiToolNames([long]);
    const wire = names.toWire(long);
    expect(wire).toMatch(OPENAI_FUNCTION_NAME_PATTERN);
    expect(names.fromWire(wire)).toBe(long);
  });

  it('decodes a name the model invented by the rule backwards', () => {
    const names = new OpenAiToolNames(['files.read']);
    expect(names.fromWire('files__raed')).toBe('files.raed');
  });
});
