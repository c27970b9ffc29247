import type { StoredEventRow } from '../core/stored-event-row';

/** Most event rows kept: a subscription further behind reads from the server. */
const MAX_ROWS = 4_096;
/** Most characters of data and metadata kept (large events make the run shorter). */
const MAX_CHARS = 8 * 1024 * 1024;

const charsOf = (row: StoredEventRow): number => row.data.length + row.metadata.length;

/**
 * The events of a store's own last commits, kept so that its live `$all`
 * subscriptions read them from memory instead of from the server (one query
 * per subscription per commit, and the rows' parsing, saved).
 *
 * It holds one run of consecutive positions `first..last`, each row as the
 * server stores it. A page after `cursor` is served from it only when it can
 * answer exactly as the server would:
 * - the run holds `cursor + 1`, or ends at `cursor` (an empty page):
 *   positions are dense, so the rows after the cursor are the run's, in order;
 * - nothing is known beyond the run's end: every notification's head so far
 *   is at or below `last` (a later commit of another store is read from the
 *   server);
 * - no wake-up of the doubting kind (the listener's (re)connection, its
 *   loss, the fallback tick: commits may have gone unannounced) came since
 *   the start of the store's last batch that committed. That batch locked
 *   the log head after the doubt, so it saw every commit before it; a later
 *   commit of another store notifies this one (it is registered), or the
 *   next doubt sends its subscriptions to the server again.
 * A batch whose head is not the run's end (another store wrote between)
 * starts a new run.
 */
export class RecentCommits {
  private rows: StoredEventRow[] = [];
  private first = 0;
  private chars = 0;
  private knownHead = 0;
  /** Doubting wake-ups so far; the store starts in doubt. */
  private doubts = 1;
  /** The doubts that a committed batch has cleared. */
  private cleared = 0;

  /** Called as a batch starts (before it is sent): what its commit will clear. */
  begin(): number {
    return this.doubts;
  }

  /**
   * A batch of this store committed: `head` is the log head it found under
   * the lock, `rows` what it wrote at `head + 1` on; `since` is what
   * {@link begin} gave before it was sent.
   */
  committed(since: number, head: number, rows: readonly StoredEventRow[]): void {
    if (rows.length === 0) return;
    this.cleared = Math.max(this.cleared, since);
    if (this.rows.length > 0 && this.first + this.rows.length - 1 === head) this.rows.push(...rows);
    else {
      this.rows = [...rows];
      this.first = head + 1;
      this.chars = 0;
    }
    for (const row of rows) this.chars += charsOf(row);
    let dropped = 0;
    while (dropped < this.rows.length && (this.rows.length - dropped > MAX_ROWS || this.chars > MAX_CHARS)) this.chars -= charsOf(this.rows[dropped++] as StoredEventRow);
    if (dropped > 0) {
      this.rows = this.rows.slice(dropped);
      this.first += dropped;
    }
    this.knownHead = Math.max(this.knownHead, head + rows.length);
  }

  /** A notification said another commit left the log head at `head`. */
  heard(head: number): void {
    this.knownHead = Math.max(this.knownHead, head);
  }

  /** A wake-up that says nothing of what was committed (commits may have gone unannounced): pages come from the server until a batch of this store commits. */
  doubt(): void {
    this.doubts++;
  }

  /** The page of `$all` after position `cursor` (at most `limit` rows), or undefined when it must be read from the server. */
  page(cursor: number, limit: number): StoredEventRow[] | undefined {
    if (this.cleared < this.doubts || this.rows.length === 0) return undefined;
    const last = this.first + this.rows.length - 1;
    if (last < this.knownHead || cursor < this.first - 1 || cursor > last) return undefined;
    // At `last` the answer is an empty page: the subscription waits for the next commit of this store, or a notification.
    const from = cursor - this.first + 1;
    return this.rows.slice(from, from + limit);
  }
}
