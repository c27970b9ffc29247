import { LatestOnly } from './latest-only';

/** A promise and the functions that settle it, for ordering answers by hand. */
function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void; reject: (error: unknown) => void } {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const settled = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('LatestOnly: the answer of the latest request of a page', () => {
  it('drops an earlier request answered after a later one (filters changed while it was in flight)', async () => {
    const latest = new LatestOnly();
    const applied: string[] = [];
    const failed: unknown[] = [];
    const unfiltered = deferred<string>();
    const filtered = deferred<string>();
    latest.track(unfiltered.promise, (a) => applied.push(a), (e) => failed.push(e));
    latest.track(filtered.promise, (a) => applied.push(a), (e) => failed.push(e));
    filtered.resolve('completed runs only');
    await settled();
    unfiltered.resolve('every run');
    await settled();
    expect(applied).toEqual(['completed runs only']);
    expect(failed).toEqual([]);
  });

  it("applies the latest answer, and an earlier request's error is not shown over it", async () => {
    const latest = new LatestOnly();
    const applied: string[] = [];
    const failed: unknown[] = [];
    const first = deferred<string>();
    const second = deferred<string>();
    latest.track(first.promise, (a) => applied.push(a), (e) => failed.push(e));
    latest.track(second.promise, (a) => applied.push(a), (e) => failed.push(e));
    first.reject(new Error('HTTP 503'));
    second.resolve('rows');
    await settled();
    expect(applied).toEqual(['rows']);
    expect(failed).toEqual([]);
  });

  it("shows the latest request's error", async () => {
    const latest = new LatestOnly();
    const failed: unknown[] = [];
    const only = deferred<string>();
    latest.track(only.promise, () => undefined, (e) => failed.push(e));
    only.reject(new Error('HTTP 400'));
    await settled();
    expect(failed).toEqual([new Error('HTTP 400')]);
  });
});
