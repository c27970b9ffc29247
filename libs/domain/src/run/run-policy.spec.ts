import { InvalidFieldError } from '../errors/invalid-field.error';
import { BACKOFF_BASE_SECONDS, BACKOFF_CAP_SECONDS, LEASE_SECONDS, MAX_ITERATIONS, MAX_REQUEUES } from '../limits';
import { retryBackoffMs } from './retry-backoff';
import { DEFAULT_RUN_POLICY, resolveRunPolicy } from './run-policy';

describe('limits', () => {
  it('are the contract\'s numbers', () => {
    expect({ LEASE_SECONDS, MAX_REQUEUES, BACKOFF_BASE_SECONDS, BACKOFF_CAP_SECONDS, MAX_ITERATIONS }).toEqual({
      LEASE_SECONDS: 900,
      MAX_REQUEUES: 3,
      BACKOFF_BASE_SECONDS: 30,
      BACKOFF_CAP_SECONDS: 600,
      MAX_ITERATIONS: 20,
    });
  });
});

describe('retry backoff', () => {
  it('waits 30 s x 2^n, capped at 600 s', () => {
    expect([0, 1, 2, 3, 4, 5, 10].map((n) => retryBackoffMs(n, DEFAULT_RUN_POLICY) / 1000)).toEqual([30, 60, 120, 240, 480, 600, 600]);
  });

  it('follows a smaller base for tests', () => {
    expect(retryBackoffMs(2, resolveRunPolicy({ backoffBaseSeconds: 0.01, backoffCapSeconds: 1 }))).toBeCloseTo(40);
  });
});

describe('run policy options', () => {
  it('default to the contract\'s limits', () => {
    expect(resolveRunPolicy()).toEqual(DEFAULT_RUN_POLICY);
    expect(resolveRunPolicy({})).toMatchObject({ leaseSeconds: 900, maxRequeues: 3 });
  });

  it('override the lease length and the backoff, and nothing else', () => {
    expect(resolveRunPolicy({ leaseSeconds: 5, backoffBaseSeconds: 1, backoffCapSeconds: 8 })).toMatchObject({
      leaseSeconds: 5,
      backoffBaseSeconds: 1,
      backoffCapSeconds: 8,
      maxRequeues: 3,
    });
    expect(() => resolveRunPolicy({ maxRequeues: 10 } as never)).toThrow(expect.objectContaining({ field: 'maxRequeues' }) as Error);
  });

  it.each([
    [{ leaseSeconds: 0 }, 'leaseSeconds'],
    [{ leaseSeconds: -5 }, 'leaseSeconds'],
    [{ backoffBaseSeconds: Number.NaN }, 'backoffBaseSeconds'],
    [{ backoffBaseSeconds: 60, backoffCapSeconds: 30 }, 'backoffCapSeconds'],
  ])('refuse %j, naming %s', (options, field) => {
    expect(() => resolveRunPolicy(options)).toThrow(InvalidFieldError);
    expect(() => resolveRunPolicy(options)).toThrow(expect.objectContaining({ field }) as Error);
  });
});
