import { storeOf, withoutCredentials, withoutPassword } from './store-location';

describe('where a store is, in start-up messages', () => {
  it('names the embedded files with their settings', () => {
    const config = { eventStorePath: '/d/b.sqlite', eventStoreConnectionString: null, postgres: null, auditStorePath: '/d/audit.sqlite' };
    expect(storeOf(config, 'runs')).toBe('the run store /d/b.sqlite (EVENT_STORE_PATH)');
    expect(storeOf(config, 'audit')).toBe('the audit store /d/audit.sqlite (AUDIT_STORE_PATH)');
    expect(storeOf({ ...config, auditStorePath: null }, 'audit')).toBe('the audit store (the run store) /d/b.sqlite (EVENT_STORE_PATH)');
  });

  it('names EventStoreDB by its connection string, without the credentials', () => {
    const config = { eventStorePath: null, eventStoreConnectionString: 'esdb://admin:changeit@db:2113?tls=false', postgres: null, auditStorePath: null };
    expect(storeOf(config, 'runs')).toBe('the run store EventStoreDB at esdb://db:2113?tls=false (EVENTSTORE_CONNECTION_STRING)');
    expect(withoutCredentials('esdb+discover://u:p@a:2113,b:2113')).toBe('esdb+discover://a:2113,b:2113');
    expect(withoutCredentials('esdb://db:2113?tls=false')).toBe('esdb://db:2113?tls=false');
  });

  it('names PostgreSQL by its connection string without the password, and its schema', () => {
    const postgres = { connectionString: 'postgresql://ledger:s3cret@db:5432/al?sslmode=require', schema: 'tenant_a', poolSize: 10, tls: null };
    const config = { eventStorePath: null, eventStoreConnectionString: null, postgres, auditStorePath: null };
    expect(storeOf(config, 'runs')).toBe('the run store PostgreSQL at postgresql://ledger@db:5432/al?sslmode=require schema tenant_a (POSTGRES_CONNECTION_STRING)');
    expect(storeOf(config, 'audit')).toBe('the audit store (the run store) PostgreSQL at postgresql://ledger@db:5432/al?sslmode=require schema tenant_a (POSTGRES_CONNECTION_STRING)');
    expect(storeOf({ ...config, auditStorePath: '/d/audit.sqlite' }, 'audit')).toBe('the audit store /d/audit.sqlite (AUDIT_STORE_PATH)');
  });

  it.each([
    ['postgres://al:secret@db/al', 'postgres://al@db/al'],
    ['postgres://al@db/al', 'postgres://al@db/al'],
    ['postgres://db/al', 'postgres://db/al'],
    ['postgres://al@db/al?password=secret&sslmode=require', 'postgres://al@db/al?sslmode=require'],
    ['postgres://db/al?sslmode=require&password=secret', 'postgres://db/al?sslmode=require'],
    ['postgres://db/al?password=secret', 'postgres://db/al'],
    ["host=db user=al password='a b' dbname=al", 'host=db user=al dbname=al'],
    ['host=db password=secret dbname=al', 'host=db dbname=al'],
  ])('withoutPassword(%s) is %s', (given, shown) => {
    expect(withoutPassword(given)).toBe(shown);
    expect(withoutPassword(given)).not.toMatch(/secret|a b/);
  });
});
