import { CRASH_POINTS, crashPoint, crashPointSync } from '@agent-ledger/crash-points';
import { readServiceConfig } from '../service-config';
import { CRASH_LINE_PREFIX, crashPointKiller, mulberry32 } from './crash-point-killer';
import { startCrashTestMode } from './crash-test-mode';
import { parseCrashPoints, readCrashTestConfig } from './crash-test-settings';

describe('AGENT_LEDGER_CRASH_POINTS: parsing', () => {
  it('reads <point>, <point>@<n> and <point>:<probability>, comma-separated, spaces allowed', () => {
    expect(parseCrashPoints('afterWriteFence@3, beforeAudit:0.05,beforeSettle, duringProjectionUpdate:1')).toEqual([
      { point: 'afterWriteFence', trigger: { kind: 'nth', n: 3 } },
      { point: 'beforeAudit', trigger: { kind: 'probability', p: 0.05 } },
      { point: 'beforeSettle', trigger: { kind: 'nth', n: 1 } },
      { point: 'duringProjectionUpdate', trigger: { kind: 'probability', p: 1 } },
    ]);
  });

  it('knows every crash point of the runtime', () => {
    expect(parseCrashPoints(CRASH_POINTS.join(',')).map((r) => r.point)).toEqual(CRASH_POINTS);
  });

  it.each([
    ['an unknown point', 'afterLunch@1', /unknown crash point "afterLunch"/],
    ['a point in the wrong case', 'AfterWriteFence', /unknown crash point/],
    ['a count of 0', 'beforeAudit@0', /count out of 1\.\./],
    ['a count that is not an integer', 'beforeAudit@1.5', /not <point>/],
    ['a probability of 0', 'beforeAudit:0', /probability out of \(0, 1\]/],
    ['a probability over 1', 'beforeAudit:1.5', /probability out of \(0, 1\]/],
    ['a negative probability', 'beforeAudit:-0.1', /not <point>/],
    ['both a count and a probability', 'beforeAudit@2:0.5', /not <point>/],
    ['an empty item', 'beforeAudit,,beforeSettle', /empty item/],
    ['a point twice', 'beforeAudit@1,beforeAudit@2', /beforeAudit twice/],
  ])('refuses %s, naming the setting and listing the points', (_what, spec, problem) => {
    let error: unknown;
    try {
      parseCrashPoints(spec);
    } catch (caught) {
      error = caught;
    }
    expect(error).toMatchObject({ field: 'AGENT_LEDGER_CRASH_POINTS' });
    expect((error as Error).message).toMatch(problem);
    expect((error as Error).message).toContain('points: beforeWriteFence, afterWriteFence, duringToolCall');
  });
});

describe('the crash test settings in the service configuration', () => {
  it('are off by default', () => {
    expect(readServiceConfig({}, '/srv/app')).toMatchObject({ crashPoints: null, testLedgerPath: null });
  });

  it('are read from the environment: the points, the seed, the ledger file (relative to the working folder)', () => {
    const config = readServiceConfig({ AGENT_LEDGER_CRASH_POINTS: ' beforeAudit@2 ', AGENT_LEDGER_CRASH_SEED: '42', AGENT_LEDGER_TEST_LEDGER: 'ledger.jsonl' }, '/srv/app');
    expect(config.crashPoints).toEqual({ spec: 'beforeAudit@2', rules: [{ point: 'beforeAudit', trigger: { kind: 'nth', n: 2 } }], seed: 42 });
    expect(config.testLedgerPath).toBe('/srv/app/ledger.jsonl');
  });

  it.each([
    ['AGENT_LEDGER_CRASH_POINTS', { AGENT_LEDGER_CRASH_POINTS: 'beforeAudit@x' }],
    ['AGENT_LEDGER_CRASH_SEED', { AGENT_LEDGER_CRASH_POINTS: 'beforeAudit', AGENT_LEDGER_CRASH_SEED: 'seven' }],
    ['AGENT_LEDGER_CRASH_SEED', { AGENT_LEDGER_CRASH_POINTS: 'beforeAudit', AGENT_LEDGER_CRASH_SEED: '4294967296' }],
    ['AGENT_LEDGER_CRASH_SEED', { AGENT_LEDGER_CRASH_SEED: '7' }],
  ])('a bad value stops the configuration, naming %s', (field, env) => {
    expect(() => readServiceConfig(env)).toThrow(expect.objectContaining({ field }) as Error);
  });

  it.each([
    ['AGENT_LEDGER_CRASH_POINTS', { AGENT_LEDGER_CRASH_POINTS: 'beforeAudit@1' }],
    ['AGENT_LEDGER_CRASH_POINTS', { AGENT_LEDGER_CRASH_POINTS: 'beforeAudit@1', AGENT_LEDGER_TEST_LEDGER: '/tmp/l' }],
    ['AGENT_LEDGER_TEST_LEDGER', { AGENT_LEDGER_TEST_LEDGER: '/tmp/ledger.jsonl' }],
  ])('are refused when NODE_ENV is production, naming %s', (field, env) => {
    for (const nodeEnv of ['production', ' Production ']) {
      let error: unknown;
      try {
        readServiceConfig({ ...env, NODE_ENV: nodeEnv });
      } catch (caught) {
        error = caught;
      }
      expect(error).toMatchObject({ field });
      expect((error as Error).message).toMatch(/test setting and is refused when NODE_ENV is production/);
    }
  });

  it('are not read from the configuration file', () => {
    expect(readCrashTestConfig({ NODE_ENV: 'production' }, '/srv')).toEqual({ crashPoints: null, testLedgerPath: null });
  });
});

describe('the crash point killer', () => {
  const killerOf = (spec: string, seed = 1) => {
    const lines: string[] = [];
    let kills = 0;
    const handler = crashPointKiller(parseCrashPoints(spec), seed, { kill: () => (kills += 1), report: (line) => lines.push(line), pid: 99 });
    return { handler, lines, kills: () => kills };
  };

  it('kills at the n-th time the point is reached, saying where; other points pass', () => {
    const { handler, lines, kills } = killerOf('afterWriteFence@3');
    const at = { runId: 'r1', stepId: 'r1/r0/t0', effect: 'NON_IDEMPOTENT_WRITE' };
    handler('afterWriteFence', at);
    handler('beforeAudit', at);
    handler('afterWriteFence', at);
    expect(kills()).toBe(0);
    handler('afterWriteFence', at);
    expect(kills()).toBe(1);
    expect(lines).toEqual([`${CRASH_LINE_PREFIX} point=afterWriteFence reached=3 rule=afterWriteFence@3 pid=99 runId=r1 stepId=r1/r0/t0 effect=NON_IDEMPOTENT_WRITE: SIGKILL`]);
  });

  it('kills with a probability drawn from the seed: the same seed, the same moments', () => {
    const moments = (seed: number) => {
      const { handler, lines } = killerOf('beforeSettle:0.3', seed);
      for (let i = 0; i < 200; i += 1) handler('beforeSettle', {});
      return lines.map((line) => /reached=(\d+)/.exec(line)?.[1]);
    };
    expect(moments(7)).toEqual(moments(7));
    expect(moments(7)).not.toEqual(moments(8));
    expect(moments(7).length).toBeGreaterThan(30);
    expect(moments(7).length).toBeLessThan(90);
    const random = mulberry32(5);
    expect(random()).toBeGreaterThanOrEqual(0);
    expect(random()).toBeLessThan(1);
  });

  it('is installed by startCrashTestMode, which says so loudly, and reached through the crash points', async () => {
    const lines: string[] = [];
    let kills = 0;
    const config = readServiceConfig({ AGENT_LEDGER_CRASH_POINTS: 'beforeAudit@1,duringProjectionUpdate@2', AGENT_LEDGER_TEST_LEDGER: '/tmp/ledger.jsonl' });
    const mode = startCrashTestMode(config, { kill: () => (kills += 1), report: (line) => lines.push(line) });
    try {
      expect(mode.banner.join('\n')).toMatch(/CRASH TEST MODE \(AGENT_LEDGER_CRASH_POINTS=beforeAudit@1,duringProjectionUpdate@2, AGENT_LEDGER_CRASH_SEED=\d+\).*never in production/);
      expect(mode.banner.join('\n')).toMatch(/TEST TOOLS \(AGENT_LEDGER_TEST_LEDGER=\/tmp\/ledger.jsonl\)/);
      await crashPoint('beforeAudit', { runId: 'r' });
      crashPointSync('duringProjectionUpdate');
      crashPointSync('duringProjectionUpdate');
      expect(kills).toBe(2);
      expect(lines.map((l) => /point=(\w+)/.exec(l)?.[1])).toEqual(['beforeAudit', 'duringProjectionUpdate']);
    } finally {
      mode.disarm();
    }
    await crashPoint('beforeAudit', { runId: 'r' });
    expect(kills).toBe(2);
  });

  it('says nothing and arms nothing when the settings are off', () => {
    expect(startCrashTestMode({ crashPoints: null, testLedgerPath: null }).banner).toEqual([]);
  });
});
