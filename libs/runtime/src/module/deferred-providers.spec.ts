import type { DynamicModule } from '@nestjs/common';
import { Module } from '@nestjs/common';
import { ConfigurationError } from '@agent-ledger/domain';
import { deferProviders } from './deferred-providers';

@Module({})
class SomeModule {}
@Module({})
class OptionsModule {}
class Service {}

const OPTIONS = Symbol('options');
const A = Symbol('a');
const B = Symbol('b');
const optionsModule: DynamicModule = { module: OptionsModule, providers: [], exports: [] };
const someModule = (): DynamicModule => ({
  module: SomeModule,
  imports: [],
  providers: [Service, { provide: A, useValue: 1 }, { provide: B, useFactory: () => 2 }, { provide: 'alias', useExisting: A }],
});

describe('deferProviders', () => {
  it('replaces each named provider by a factory of the options, keeps the others, and imports the options module', () => {
    const fromOptions = (o: { a: number }) => o.a;
    const deferred = deferProviders<{ a: number }>(someModule(), OPTIONS, optionsModule, new Map([[A, { useFactory: fromOptions }], [B, { inject: [A], useFactory: (_o: { a: number }, a: number) => a + 1 }]]));
    expect(deferred.imports).toEqual([optionsModule]);
    expect(deferred.providers).toEqual([
      Service,
      { provide: A, inject: [OPTIONS], useFactory: fromOptions },
      { provide: B, inject: [OPTIONS, A], useFactory: expect.any(Function) },
      { provide: 'alias', useExisting: A },
    ]);
  });

  it('refuses a module with a provider built from options it does not defer (it would keep its placeholder)', () => {
    expect(() => deferProviders(someModule(), OPTIONS, optionsModule, new Map([[A, { useFactory: () => 1 }]]))).toThrow(ConfigurationError);
    expect(() => deferProviders(someModule(), OPTIONS, optionsModule, new Map([[A, { useFactory: () => 1 }]]))).toThrow(/SomeModule's provider Symbol\(b\)/);
  });

  it('refuses a stale list: a named provider the module no longer has', () => {
    const C = Symbol('c');
    const all = new Map([[A, { useFactory: () => 1 }], [B, { useFactory: () => 2 }], [C, { useFactory: () => 3 }]]);
    expect(() => deferProviders(someModule(), OPTIONS, optionsModule, all)).toThrow(/expected SomeModule to provide Symbol\(c\)/);
  });
});
