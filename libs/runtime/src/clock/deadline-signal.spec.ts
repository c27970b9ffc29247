import { getEventListeners } from 'node:events';
import { deadlineSignal } from './deadline-signal';

describe('deadlineSignal', () => {
  afterEach(() => jest.useRealTimers());

  it("fires with the parent's reason when the parent fires first, and is not timed out", () => {
    jest.useFakeTimers();
    const parent = new AbortController();
    const deadline = deadlineSignal(parent.signal, 1_000);
    const reason = new Error('lease lost');
    parent.abort(reason);
    expect(deadline.signal.aborted).toBe(true);
    expect(deadline.signal.reason).toBe(reason);
    expect(deadline.timedOut).toBe(false);
    jest.advanceTimersByTime(2_000);
    expect(deadline.signal.reason).toBe(reason);
  });

  it('fires with a TimeoutError when the time passes first, as AbortSignal.timeout does', () => {
    jest.useFakeTimers();
    const parent = new AbortController();
    const deadline = deadlineSignal(parent.signal, 1_000);
    jest.advanceTimersByTime(999);
    expect(deadline.signal.aborted).toBe(false);
    jest.advanceTimersByTime(1);
    expect(deadline.signal.aborted).toBe(true);
    expect(deadline.timedOut).toBe(true);
    expect(deadline.signal.reason).toMatchObject({ name: 'TimeoutError', message: 'The operation was aborted due to timeout' });
    parent.abort(new Error('later'));
    expect(deadline.signal.reason).toMatchObject({ name: 'TimeoutError' });
  });

  it('never fires once disposed: its timer is cleared and the parent no longer listened to', () => {
    jest.useFakeTimers();
    const parent = new AbortController();
    const deadline = deadlineSignal(parent.signal, 1_000);
    deadline.dispose();
    expect(jest.getTimerCount()).toBe(0);
    parent.abort(new Error('after the call'));
    jest.advanceTimersByTime(2_000);
    expect(deadline.signal.aborted).toBe(false);
  });

  it('is aborted at once, with no timer, when the parent already is', () => {
    jest.useFakeTimers();
    const parent = new AbortController();
    parent.abort('cancelled');
    const deadline = deadlineSignal(parent.signal, 1_000);
    expect(deadline.signal.aborted).toBe(true);
    expect(deadline.signal.reason).toBe('cancelled');
    expect(jest.getTimerCount()).toBe(0);
  });

  it('keeps no listener on a long-lived parent after the calls it served', () => {
    const parent = new AbortController();
    for (let i = 0; i < 100; i++) deadlineSignal(parent.signal, 60_000).dispose();
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(0);
    const open = deadlineSignal(parent.signal, 60_000);
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(1);
    open.dispose();
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(0);
  });
});
