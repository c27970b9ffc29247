/**
 * The keys a rebuild wrote into its fresh `__rebuild` tables, as a Bloom
 * filter: a fixed few MB whatever the history's length. "Not written" is
 * certain, so a read of such a key needs no SQL (the row cannot exist: only
 * this rebuild writes these tables); "maybe written" (a false positive, about
 * 1% at 2 million keys) costs one SQL read, never a wrong answer.
 */
export class WrittenKeys {
  private readonly bits: Uint32Array;
  private readonly mask: number;

  /** @param log2Bits the filter's size: 2^log2Bits bits (default 2^24: 2 MiB) */
  constructor(log2Bits = 24) {
    this.bits = new Uint32Array(2 ** (log2Bits - 5));
    this.mask = 2 ** log2Bits - 1;
  }

  /** Records that `key` of `table` was written. */
  add(table: string, key: string): void {
    hashes(table, key);
    const { h1, h2 } = scratch;
    for (let i = 0; i < PROBES; i++) {
      const bit = (h1 + i * h2) & this.mask;
      this.bits[bit >>> 5] = (this.bits[bit >>> 5] as number) | (1 << (bit & 31));
    }
  }

  /** False when `key` of `table` was certainly never {@link add}ed. */
  mightHave(table: string, key: string): boolean {
    hashes(table, key);
    const { h1, h2 } = scratch;
    for (let i = 0; i < PROBES; i++) {
      const bit = (h1 + i * h2) & this.mask;
      if (((this.bits[bit >>> 5] as number) & (1 << (bit & 31))) === 0) return false;
    }
    return true;
  }
}

/** Bits set per key (double hashing). */
const PROBES = 5;

/** The last {@link hashes}: written in place (a lookup per row read allocates nothing). */
const scratch = { h1: 0, h2: 0 };

/** Two 32-bit FNV-1a hashes of the table and key, with different offset bases (the second odd, so that probes differ), into {@link scratch}. */
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
  scratch.h1 = a >>> 0;
  scratch.h2 = (b >>> 0) | 1;
}
