import { storeOf, withoutCredentials } from './store-identity-check';

describe('where a store is, in start-up messages', () => {
  it('names the embedded files with their settings', () => {
    const config = { eventStorePath: '/d/b.sqlite', eventStoreConnectionString: null, auditStorePath: '/d/audit.sqlite' };
    expect(storeOf(config, 'runs')).toBe('the run store /d/b.sqlite (EVENT_STORE_PATH)');
    expect(storeOf(config, 'audit')).toBe('the audit store /d/audit.sqlite (AUDIT_STORE_PATH)');
    expect(storeOf({ ...config, auditStorePath: null }, 'audit')).toBe('the audit store (the run store) /d/b.sqlite (EVENT_STORE_PATH)');
  });

  it('names EventStoreDB by its connection string, without the credentials', () => {
    const config = { eventStorePath: null, eventStoreConnectionString: 'esdb://admin:changeit@db:2113?tls=false', auditStorePath: null };
    expect(storeOf(config, 'runs')).toBe('the run store EventStoreDB at esdb://db:2113?tls=false (EVENTSTORE_CONNECTION_STRING)');
    expect(withoutCredentials('esdb+discover://u:p@a:2113,b:2113')).toBe('esdb+discover://a:2113,b:2113');
    expect(withoutCredentials('esdb://db:2113?tls=false')).toBe('esdb://db:2113?tls=false');
  });
});
