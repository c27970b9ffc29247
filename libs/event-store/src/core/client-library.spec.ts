/**
 * A store's client library is loaded by the first adapter that needs it, not
 * by importing the package: a host on the embedded store never loads gRPC or
 * `pg`.
 */
import type * as EventStorePackage from '../index';
import { lazyLibrary } from './client-library';

const CLIENTS = ['@eventstore/db-client', 'pg'] as const;

afterEach(() => {
  for (const name of CLIENTS) jest.dontMock(name);
});

describe('the store client libraries', () => {
  it('are not loaded by importing the package, and each is loaded once its adapter opens', () => {
    const loaded: string[] = [];
    jest.isolateModules(() => {
      for (const name of CLIENTS) {
        jest.doMock(name, () => {
          loaded.push(name);
          return jest.requireActual(name);
        });
      }
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded inside the isolated registry
      const eventStore = require('../index') as typeof EventStorePackage;
      expect(loaded).toEqual([]);
      const postgres = eventStore.PostgresEventStore.connect({ connectionString: 'postgresql://nobody@127.0.0.1:1/none' });
      expect(loaded).toEqual(['pg']);
      void postgres.close();
      const esdb = eventStore.EventStoreDbEventStore.connect({ connectionString: 'esdb://127.0.0.1:1?tls=false' });
      expect(loaded).toEqual(['pg', '@eventstore/db-client']);
      void esdb.close();
    });
  });

  it('load the library once, on first use', () => {
    let loads = 0;
    const library = lazyLibrary(() => ({ loaded: ++loads }));
    expect(loads).toBe(0);
    expect(library()).toBe(library());
    expect(loads).toBe(1);
  });
});
