import { SERVICE_ENVIRONMENT } from './clean-environment';

// Jest runs clean-environment.ts before this file (setupFiles). The second
// test proves something only when the shell exported some of these settings:
// scripts/suite-under-load.sh exports PORT, API_KEYS and AGENT_LEDGER_DATA_DIR
// (one shared folder) to both copies of the suite it runs.
describe('the environment a test file sees', () => {
  it('names the settings a developer is likely to have exported, and keeps EVENTSTORE_CONNECTION_STRING', () => {
    expect(SERVICE_ENVIRONMENT).toEqual(expect.arrayContaining(['PORT', 'HOST', 'API_KEYS', 'AGENT_LEDGER_DATA_DIR', 'AGENTS_CONFIG', 'AGENT_LEDGER_CONFIG', 'AUTH_MODE']));
    expect(SERVICE_ENVIRONMENT).not.toContain('EVENTSTORE_CONNECTION_STRING');
  });

  it('holds none of them, whatever the shell exported', () => {
    expect(SERVICE_ENVIRONMENT.filter((name) => process.env[name] !== undefined)).toEqual([]);
  });
});
