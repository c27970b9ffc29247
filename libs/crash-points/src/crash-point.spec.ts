import { CRASH_POINTS, crashPoint, crashPointSync, installCrashPointHandler } from './crash-point';

describe('crash points', () => {
  it('are inert without a handler', () => {
    expect(crashPoint('beforeSettle', { runId: 'r1' })).toBeUndefined();
    expect(() => crashPointSync('duringProjectionUpdate')).not.toThrow();
  });

  it('call the installed handler with the point and its context, until it is removed', async () => {
    const seen: unknown[] = [];
    const remove = installCrashPointHandler((point, context) => {
      seen.push([point, context]);
    });
    try {
      await crashPoint('afterWriteFence', { runId: 'r1', stepId: 'r1/r0/t0', effect: 'NON_IDEMPOTENT_WRITE' });
      crashPointSync('duringProjectionUpdate');
    } finally {
      remove();
    }
    await crashPoint('beforeSettle');
    expect(seen).toEqual([
      ['afterWriteFence', { runId: 'r1', stepId: 'r1/r0/t0', effect: 'NON_IDEMPOTENT_WRITE' }],
      ['duringProjectionUpdate', {}],
    ]);
  });

  it('let an asynchronous handler pause the caller (the simulation), but not at a synchronous point', async () => {
    let resume!: () => void;
    const remove = installCrashPointHandler(() => new Promise<void>((resolve) => (resume = resolve)));
    try {
      let passed = false;
      const reached = Promise.resolve(crashPoint('beforeAudit')).then(() => (passed = true));
      await Promise.resolve();
      expect(passed).toBe(false);
      resume();
      await reached;
      expect(passed).toBe(true);
      expect(() => crashPointSync('duringProjectionUpdate')).toThrow(/synchronous/);
    } finally {
      remove();
    }
  });

  it('take one handler at a time', () => {
    const remove = installCrashPointHandler(() => undefined);
    try {
      expect(() => installCrashPointHandler(() => undefined)).toThrow(/installed already/);
    } finally {
      remove();
    }
    expect(CRASH_POINTS).toHaveLength(8);
  });
});
