/**
 * `3 min ago`: how long before `now` a time was, for people, in the largest
 * unit that fits (s, min, h with min, d with h). A time after `now` (another
 * machine's clock ahead of this one) reads `in the future`.
 */
export function ageOf(at: number, now: number): string {
  const ms = now - at;
  if (ms < 0) return 'in the future';
  const seconds = Math.floor(ms / 1000);
  if (seconds < 60) return `${seconds} s ago`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return minutes % 60 === 0 ? `${hours} h ago` : `${hours} h ${minutes % 60} min ago`;
  const days = Math.floor(hours / 24);
  return hours % 24 === 0 ? `${days} d ago` : `${days} d ${hours % 24} h ago`;
}

/** `2026-11-30T00:00:05.000Z (3 min ago)`. */
export function timeAndAge(at: number, now: number): string {
  return `${new Date(at).toISOString()} (${ageOf(at, now)})`;
}
