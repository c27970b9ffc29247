import type { DynamicModule, InjectionToken, ModuleMetadata, Provider } from '@nestjs/common';
import { ConfigurationError } from '@agent-ledger/domain';

/** How `forRootAsync` builds one option-derived provider of a module, once its options are resolved. */
export interface DeferredProvider<O> {
  /** Further dependencies, after the options. @default [] */
  readonly inject?: readonly InjectionToken[];
  readonly useFactory: (options: O, ...dependencies: never[]) => unknown;
}

/**
 * Turns a module built by its synchronous `forRoot` (with placeholder
 * options) into one whose option-derived providers are built from options
 * resolved at run time: each provider named in `deferred` is replaced by a
 * factory injecting `optionsToken` (exported by `optionsModule`, added to the
 * module's imports); every other provider is kept as it is.
 *
 * It refuses, at definition time, a module that has a value or factory
 * provider not named in `deferred` (it would keep its placeholder value), or
 * that lacks one named (the list is stale): a change of the module shows up
 * as a start-up error and in the tests, never as a placeholder at run time.
 *
 * @throws ConfigurationError naming the provider
 */
export function deferProviders<O>(
  module: DynamicModule,
  optionsToken: InjectionToken,
  optionsModule: NonNullable<ModuleMetadata['imports']>[number],
  deferred: ReadonlyMap<InjectionToken, DeferredProvider<O>>,
): DynamicModule {
  const name = module.module.name;
  const seen = new Set<InjectionToken>();
  const providers = (module.providers ?? []).map((provider: Provider): Provider => {
    if (typeof provider === 'function' || !('useValue' in provider || 'useFactory' in provider)) return provider;
    const replacement = deferred.get(provider.provide);
    if (replacement === undefined) {
      throw new ConfigurationError(`forRootAsync cannot defer ${name}'s provider ${describe(provider.provide)}: it is built from options it does not know`);
    }
    seen.add(provider.provide);
    const { useFactory } = replacement;
    return { provide: provider.provide, inject: [optionsToken, ...(replacement.inject ?? [])], useFactory: useFactory as (...args: unknown[]) => unknown };
  });
  for (const token of deferred.keys()) {
    if (!seen.has(token)) throw new ConfigurationError(`forRootAsync expected ${name} to provide ${describe(token)}`);
  }
  return { ...module, imports: [...(module.imports ?? []), optionsModule], providers };
}

function describe(token: InjectionToken): string {
  return typeof token === 'function' ? token.name : String(token);
}
