import { RESTART_STABLE_AFTER_MS, RestartBackoff } from './restart-backoff';

describe('RestartBackoff', () => {
  it('doubles the delay while the process keeps exiting within a minute, up to the maximum', () => {
    const backoff = new RestartBackoff({ initialDelayMs: 1_000, maxDelayMs: 5_000 });
    expect([10, 10, 10, 10, 10].map((ranForMs) => backoff.delayAfterExit(ranForMs))).toEqual([1_000, 2_000, 4_000, 5_000, 5_000]);
  });

  it('starts from the initial delay again after a run of a minute or more', () => {
    const backoff = new RestartBackoff({ initialDelayMs: 100, maxDelayMs: 30_000 });
    backoff.delayAfterExit(10);
    expect(backoff.delayAfterExit(10)).toBe(200);
    expect(backoff.delayAfterExit(RESTART_STABLE_AFTER_MS)).toBe(100);
    expect(backoff.delayAfterExit(10)).toBe(200);
  });
});
