import { WrittenKeys } from './written-keys';

/** The rowid `keys` holds for `key` of `table` that `rows` (rowid -> key, as the table would answer) confirms; 0 for none. */
function lookUp(keys: WrittenKeys, rows: ReadonlyMap<number, string>, table: string, key: string): number {
  return keys.find(table, key, (rowid) => rows.get(rowid) === `${table}:${key}`);
}

describe('WrittenKeys (where a rebuild wrote each row, by key)', () => {
  it('finds the rowid of every key it was given, per table, as it grows', () => {
    const keys = new WrittenKeys(1_000_000, 4);
    const rows = new Map<number, string>();
    for (let i = 1; i <= 20_000; i++) {
      const table = i % 2 === 0 ? 'runs' : 'steps';
      keys.add(table, `key-${i}`, i);
      rows.set(i, `${table}:key-${i}`);
    }
    expect(keys.size).toBe(20_000);
    for (let i = 1; i <= 20_000; i++) expect(lookUp(keys, rows, i % 2 === 0 ? 'runs' : 'steps', `key-${i}`)).toBe(i);
  });

  it('says certainly "never written" of keys it was not given, without asking, and of another table\'s keys', () => {
    const keys = new WrittenKeys();
    for (let i = 1; i <= 50_000; i++) keys.add('steps', `step-${i}`, i);
    let asked = 0;
    for (let i = 1; i <= 50_000; i++) {
      expect(
        keys.find('steps', `other-${i}`, () => {
          asked += 1;
          return false;
        }),
      ).toBe(0);
      expect(keys.find('runs', `step-${i}`, () => true)).toBe(0);
    }
    // A candidate needs the same 64 bits of hash: in 50,000 lookups of absent keys, none.
    expect(asked).toBe(0);
  });

  it('offers each candidate until one is confirmed, so a hash collision costs a read, never a wrong row', () => {
    const keys = new WrittenKeys();
    keys.add('runs', 'a', 1);
    keys.add('runs', 'a', 2); // as a second key with the very same hashes would be
    const offered: number[] = [];
    expect(
      keys.find('runs', 'a', (rowid) => {
        offered.push(rowid);
        return rowid === 2;
      }),
    ).toBe(2);
    expect(offered).toEqual([1, 2]);
    expect(keys.find('runs', 'a', () => false)).toBe(0);
  });

  it('stops taking rows past its capacity and says it is full', () => {
    const keys = new WrittenKeys(3);
    for (let i = 1; i <= 3; i++) keys.add('runs', `run-${i}`, i);
    expect(keys.full).toBe(false);
    keys.add('runs', 'run-4', 4);
    expect(keys.full).toBe(true);
    expect(keys.size).toBe(3);
    expect(keys.find('runs', 'run-4', () => true)).toBe(0);
  });

  it('refuses a rowid it cannot hold', () => {
    expect(() => new WrittenKeys().add('runs', 'x', 0)).toThrow(RangeError);
    expect(() => new WrittenKeys().add('runs', 'x', 2 ** 32)).toThrow(RangeError);
    expect(() => new WrittenKeys(10, 3)).toThrow(RangeError);
  });
});
