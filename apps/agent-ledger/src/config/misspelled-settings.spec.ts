import { misspelledSettings, misspelledSettingWarning } from './misspelled-settings';

describe('misspelled settings in the environment', () => {
  it('names a variable that looks like a setting and is none, with the closest setting', () => {
    expect(misspelledSettings({ AGENT_LEDGER_DATADIR: './data', WORKER_CONCURENCY: '4', POSTGRES_SCHEME: 'x', API_KEY: 'k' })).toEqual([
      { name: 'AGENT_LEDGER_DATADIR', closest: 'AGENT_LEDGER_DATA_DIR' },
      { name: 'API_KEY', closest: 'API_KEYS' },
      { name: 'POSTGRES_SCHEME', closest: 'POSTGRES_SCHEMA' },
      { name: 'WORKER_CONCURENCY', closest: 'WORKER_CONCURRENCY' },
    ]);
    expect(misspelledSettingWarning({ name: 'WORKER_CONCURENCY', closest: 'WORKER_CONCURRENCY' })).toBe(
      'the environment variable WORKER_CONCURENCY is not a setting of agent-ledger and is ignored; did you mean WORKER_CONCURRENCY?',
    );
  });

  it('says nothing of the settings, the CLI variables, and variables of other programs', () => {
    const env = {
      AGENT_LEDGER_DATA_DIR: './data',
      WORKER_CONCURRENCY: '4',
      AGENT_LEDGER_URL: 'http://127.0.0.1:3000',
      AGENT_LEDGER_API_KEY: 'k',
      OPENAI_API_KEY: 'sk',
      POSTGRES_PASSWORD: 'secret',
      POSTGRES_USER: 'ledger',
      POSTGRES_DB: 'ledger',
      HTTP_PROXY: 'http://proxy',
      HOSTNAME: 'box',
      NODE_OPTIONS: '--max-old-space-size=4096',
      PATH: '/usr/bin',
    };
    expect(misspelledSettings(env)).toEqual([]);
  });
});
