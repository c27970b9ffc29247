import { InvalidStreamNameError } from './port/errors/invalid-stream-name.error';
import { assertValidStreamName, isValidStreamName, MAX_STREAM_NAME_LENGTH, parseStreamName, streamName } from './stream-name';

describe('stream names: <category>-<id>', () => {
  it('builds <category>-<id> and parses it back at the first dash (ids may hold dashes)', () => {
    const id = '3f1c2a9e-0000-4000-8000-000000000001';
    expect(streamName('run', id)).toBe(`run-${id}`);
    expect(parseStreamName(`run-${id}`)).toEqual({ category: 'run', id });
    expect(parseStreamName('toolCall.v2-a-b')).toEqual({ category: 'toolCall.v2', id: 'a-b' });
  });

  it.each([
    ['', 'x', /category is empty/],
    ['run-x', 'y', /must not contain a dash/],
    ['1run', 'x', /start with a letter/],
    ['$ce', 'x', /start with a letter/],
    ['ru n', 'x', /start with a letter/],
    ['run', '', /id is empty/],
    ['run', 'a b', /whitespace or control/],
    ['run', 'a\nb', /whitespace or control/],
    ['run', 'a\u0000b', /whitespace or control/],
    ['run', 'x'.repeat(MAX_STREAM_NAME_LENGTH), /longer than/],
  ])('streamName(%j, %j) is rejected', (category, id, reason) => {
    let error: unknown;
    try {
      streamName(category, id);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InvalidStreamNameError);
    expect((error as InvalidStreamNameError).reason).toMatch(reason);
    expect((error as InvalidStreamNameError).code).toBe('INVALID_STREAM_NAME');
  });

  it.each(['', 'run', '-x', 'run-', '$all', '$ce-run', ' run-x', 'run-x y'])('parseStreamName(%j) is rejected', (name) => {
    expect(() => parseStreamName(name)).toThrow(InvalidStreamNameError);
    expect(isValidStreamName(name)).toBe(false);
    expect(() => assertValidStreamName(name)).toThrow(expect.objectContaining({ streamName: name }));
  });

  it('rejects non-strings without crashing', () => {
    expect(() => parseStreamName(undefined as never)).toThrow(InvalidStreamNameError);
    expect(() => streamName(undefined as never, 'x')).toThrow(InvalidStreamNameError);
  });

  it('accepts the longest allowed name', () => {
    const name = `run-${'x'.repeat(MAX_STREAM_NAME_LENGTH - 4)}`;
    expect(isValidStreamName(name)).toBe(true);
    expect(isValidStreamName(`${name}x`)).toBe(false);
  });
});
