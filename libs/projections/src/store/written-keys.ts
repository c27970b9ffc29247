/**
 * The rows a rebuild wrote into its fresh `__rebuild` tables, by key: where
 * each one is (its rowid), in a hash table of typed arrays (about 12 bytes a
 * row, no string kept). The rebuild's tables get no index on their key until
 * the history is replayed, so that they are appended to in insertion order;
 * this index is how a row is found again meanwhile.
 *
 * A key is stored as two 32-bit hashes of its table and itself: "never
 * written" is certain (no entry: the row cannot exist, only this rebuild
 * writes these tables); an entry is a candidate, which the reader confirms
 * against the row's key (two keys with the same 64 bits cost one more read,
 * never a wrong answer).
 *
 * Bounded: past {@link WrittenKeys.capacity} rows it stops taking more
 * ({@link WrittenKeys.full}); the rebuild then indexes its tables' keys and
 * finds rows by key from there on.
 */
export class WrittenKeys {
  /** Rows it can hold before it is {@link full}. */
  readonly capacity: number;
  private h1: Uint32Array;
  private h2: Uint32Array;
  /** 0: an empty slot (rowids start at 1). */
  private rowids: Uint32Array;
  private mask: number;
  private count = 0;
  private overflowed = false;

  /**
   * @param capacity rows it holds at most before it is {@link full} (default 3 million: 2^22 slots, 48 MiB at the most)
   * @param initialSlots slots at first (a power of two; doubled as rows come)
   */
  constructor(capacity = 3_000_000, initialSlots = 2 ** 16) {
    if (!Number.isSafeInteger(initialSlots) || initialSlots < 2 || (initialSlots & (initialSlots - 1)) !== 0) {
      throw new RangeError(`initialSlots must be a power of two >= 2, got ${initialSlots}`);
    }
    this.capacity = capacity;
    this.h1 = new Uint32Array(initialSlots);
    this.h2 = new Uint32Array(initialSlots);
    this.rowids = new Uint32Array(initialSlots);
    this.mask = initialSlots - 1;
  }

  /** Rows recorded. */
  get size(): number {
    return this.count;
  }

  /** Whether it stopped taking rows (more than {@link capacity} were written): its answers are then no longer complete. */
  get full(): boolean {
    return this.overflowed;
  }

  /**
   * Records that the row of `table` with `key` was written at `rowid`. Past
   * {@link capacity}, records nothing and turns {@link full}.
   */
  add(table: string, key: string, rowid: number): void {
    if (this.overflowed) return;
    if (this.count >= this.capacity) {
      this.overflowed = true;
      return;
    }
    if (!Number.isSafeInteger(rowid) || rowid < 1 || rowid > 0xffffffff) throw new RangeError(`rowid out of range: ${rowid}`);
    if ((this.count + 1) * 4 > (this.mask + 1) * 3) this.grow();
    hashes(table, key);
    this.insert(scratch.h1, scratch.h2, rowid);
    this.count += 1;
  }

  /**
   * The rowids recorded for `key` of `table` (candidates, to confirm against
   * the row: almost always none or one), calling `found` with each until it
   * returns true. Returns the rowid accepted, or 0 when none was (certainly
   * never written, unless {@link full}).
   */
  find(table: string, key: string, found: (rowid: number) => boolean): number {
    hashes(table, key);
    const { h1, h2 } = scratch;
    for (let slot = h1 & this.mask; ; slot = (slot + 1) & this.mask) {
      const rowid = this.rowids[slot] as number;
      if (rowid === 0) return 0;
      if (this.h1[slot] === h1 && this.h2[slot] === h2 && found(rowid)) return rowid;
    }
  }

  private insert(h1: number, h2: number, rowid: number): void {
    let slot = h1 & this.mask;
    while (this.rowids[slot] !== 0) slot = (slot + 1) & this.mask;
    this.h1[slot] = h1;
    this.h2[slot] = h2;
    this.rowids[slot] = rowid;
  }

  private grow(): void {
    const { h1, h2, rowids } = this;
    const slots = (this.mask + 1) * 2;
    this.h1 = new Uint32Array(slots);
    this.h2 = new Uint32Array(slots);
    this.rowids = new Uint32Array(slots);
    this.mask = slots - 1;
    for (let i = 0; i < rowids.length; i++) {
      const rowid = rowids[i] as number;
      if (rowid !== 0) this.insert(h1[i] as number, h2[i] as number, rowid);
    }
  }
}

/** The last {@link hashes}: written in place (a lookup per row read allocates nothing). */
const scratch = { h1: 0, h2: 0 };

/** Two 32-bit FNV-1a style hashes of the table and key, with different primes and offset bases, into {@link scratch}. */
function hashes(table: string, key: string): void {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < table.length; i++) {
    const c = table.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
  }
  a = Math.imul(a ^ 0x1f, 0x01000193);
  b = Math.imul(b ^ 0x1f, 0x5bd1e995);
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
  }
  // FNV's low bits mix poorly for keys that differ at the end (step ids): a final avalanche before the slot is taken from them.
  a ^= a >>> 16;
  a = Math.imul(a, 0x85ebca6b);
  a ^= a >>> 13;
  a = Math.imul(a, 0xc2b2ae35);
  a ^= a >>> 16;
  scratch.h1 = a >>> 0;
  scratch.h2 = b >>> 0;
}
