import type { DynamicModule } from '@nestjs/common';
import { Module } from '@nestjs/common';
import type { AgentLedgerModuleOptions, ReadModelsOptions } from '@agent-ledger/module';
import { AgentLedgerModule, readModelSources } from '@agent-ledger/module';
import type { HttpApiOptions } from './http-api-options';
import { HTTP_API_CONTROLLERS, httpApiProviders } from './http-api';

/** What {@link AgentLedgerHttpModule.forRoot} is built from. */
export interface AgentLedgerHttpModuleOptions {
  /**
   * The runtime's options (`AgentLedgerModule.forRoot`), read models
   * required: the API answers its reads from them.
   */
  readonly ledger: AgentLedgerModuleOptions & { readonly readModels: ReadModelsOptions };
  /** The HTTP API's settings: authentication, limits, the console's folder. */
  readonly http: HttpApiOptions;
}

/**
 * The whole service in a Nest application: the runtime and its read models
 * (`AgentLedgerModule`) and, on top, the HTTP API and the console, exactly
 * as the `agent-ledger` service serves them (the same controllers, API key
 * guard, validation pipe and error filter: they are registered
 * application-wide, so they cover the host's other controllers too). After
 * `NestFactory.create(..., { bodyParser: false })`, call
 * `setUpAgentLedgerHttp(app)` once for the API's body handling and its
 * OpenAPI document.
 *
 * @example
 * AgentLedgerHttpModule.forRoot({
 *   ledger: {
 *     store,
 *     agents,
 *     tools: { tools: [MyTool] },
 *     readModels: { databasePath: './data/my-app/read-models.sqlite' },
 *     auditGapSaga: { databasePath: './data/my-app/audit-gap-saga.sqlite' },
 *   },
 *   http: { auth: { mode: 'api-keys', modeSource: 'setting', apiKeys: parseApiKeyEntries(JSON.parse(process.env.API_KEYS ?? '[]'), 'API_KEYS') }, ... },
 * })
 */
@Module({})
export class AgentLedgerHttpModule {
  static forRoot(options: AgentLedgerHttpModuleOptions): DynamicModule {
    const { ledger, http } = options;
    return {
      module: AgentLedgerHttpModule,
      imports: [AgentLedgerModule.forRoot(ledger)],
      controllers: [...HTTP_API_CONTROLLERS],
      providers: httpApiProviders(http, readModelSources(ledger.store, ledger.auditStore), ledger.agents),
      exports: [AgentLedgerModule],
    };
  }
}
