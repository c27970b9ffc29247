/**
 * Reads a `.env` file as Docker Compose reads it for interpolation: one
 * `NAME=value` a line, `#` comments and blank lines skipped, a value between
 * single quotes taken as it is, between double quotes with `\n`, `\t`, `\"`
 * and `\\` unescaped, and a bare value trimmed, with a ` #` comment removed.
 * A line of any other form is refused, naming its number, so that a test
 * never reads a file Compose would read differently.
 */
export function parseDotenv(text: string, name = '.env'): Map<string, string> {
  const values = new Map<string, string>();
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const match = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(line);
    if (match === null) throw new Error(`${name}:${index + 1}: not NAME=value: ${raw}`);
    const [, key, rest] = match as unknown as [string, string, string];
    values.set(key, valueOf(rest, `${name}:${index + 1}`));
  });
  return values;
}

function valueOf(rest: string, where: string): string {
  const quote = rest[0];
  if (quote === "'" || quote === '"') {
    const end = rest.indexOf(quote, 1);
    let close = end;
    if (quote === '"') {
      close = 1;
      while (close < rest.length && rest[close] !== '"') close += rest[close] === '\\' ? 2 : 1;
    }
    if (close === -1 || close >= rest.length) throw new Error(`${where}: the ${quote} quote is not closed`);
    const after = rest.slice(close + 1).trim();
    if (after !== '' && !after.startsWith('#')) throw new Error(`${where}: text after the closing quote: ${after}`);
    const inner = rest.slice(1, close);
    return quote === "'" ? inner : inner.replace(/\\(.)/g, (_, c: string) => ({ n: '\n', t: '\t' })[c] ?? c);
  }
  return rest.replace(/\s+#.*$/, '').trim();
}
