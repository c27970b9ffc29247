import { parseDotenv } from './dotenv-file';

describe('parseDotenv', () => {
  it('reads NAME=value lines as Compose does: comments skipped, single quotes as is, double quotes unescaped, bare values trimmed', () => {
    const text = ['# a comment', '', 'EMPTY=', "KEYS='[{\"id\":\"a\",\"hash\":\"scrypt$00$11\"}]'", 'QUOTED="a\\"b\\nc"', 'BARE=  3000   # the port', 'export EXPORTED=yes'].join('\n');
    expect(Object.fromEntries(parseDotenv(text))).toEqual({
      EMPTY: '',
      KEYS: '[{"id":"a","hash":"scrypt$00$11"}]',
      QUOTED: 'a"b\nc',
      BARE: '3000',
      EXPORTED: 'yes',
    });
  });

  it('refuses a line it cannot read, naming the file and the line', () => {
    expect(() => parseDotenv('A=1\nnot a setting\n', 'x.env')).toThrow('x.env:2: not NAME=value');
    expect(() => parseDotenv("A='open\n", 'x.env')).toThrow("x.env:1: the ' quote is not closed");
    expect(() => parseDotenv("A='a' b\n", 'x.env')).toThrow('x.env:1: text after the closing quote');
  });
});
