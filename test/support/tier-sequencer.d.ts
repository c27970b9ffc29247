/** The declarations of test/support/tier-sequencer.js (plain CommonJS, loaded by Jest), for the tests that call it. */

/** The tiers in the order they run; a file of no tier runs last. */
export const TIER_ORDER: readonly string[];

/** A test file as the sequencer orders it. */
export interface SequencedFile {
  readonly path: string;
  readonly rootDir: string;
  /** Its size in bytes: the order of files no recorded run has timed. */
  readonly size: number;
}

/** `files` in the order they should run: tier by tier, the longest recorded first, then the largest. */
export function orderFiles<F extends SequencedFile>(files: readonly F[], recorded: Readonly<Record<string, number>>): F[];
