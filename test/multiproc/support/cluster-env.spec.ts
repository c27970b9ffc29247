import { clusterEnv, WORK_DISTRIBUTION_ENV } from './cluster-env';

describe('clusterEnv', () => {
  it('is the work distribution settings, with MULTIPROC_ENV on top', () => {
    expect(clusterEnv({})).toEqual({ ...WORK_DISTRIBUTION_ENV });
    expect(clusterEnv({ MULTIPROC_ENV: ' ' })).toEqual({ ...WORK_DISTRIBUTION_ENV });
    expect(clusterEnv({ MULTIPROC_ENV: '{"EVENTSTORE_CONSUMER_GROUP":"workers"}' })).toEqual({ ...WORK_DISTRIBUTION_ENV, EVENTSTORE_CONSUMER_GROUP: 'workers' });
  });

  it('refuses a MULTIPROC_ENV that is not a JSON object of strings, naming it', () => {
    expect(() => clusterEnv({ MULTIPROC_ENV: '{nope' })).toThrow(/^MULTIPROC_ENV must be a JSON object of strings: /);
    expect(() => clusterEnv({ MULTIPROC_ENV: '["a"]' })).toThrow('MULTIPROC_ENV must be a JSON object of strings, got ["a"]');
    expect(() => clusterEnv({ MULTIPROC_ENV: '{"LEASE_SECONDS":4}' })).toThrow('MULTIPROC_ENV must be a JSON object of strings, got {"LEASE_SECONDS":4}');
  });
});
