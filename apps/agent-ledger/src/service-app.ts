import type { LoggerService } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { AgentDefinition, LoadedPlugins } from '@agent-ledger/runtime';
import type { McpServers } from '@agent-ledger/mcp';
import { AppModule } from './app.module';
import type { OpenStores } from './config/open-stores';
import type { ServiceConfig } from './config/service-config';
import { setUpAgentLedgerHttp } from '@agent-ledger/http';

/**
 * The service's Nest application on stores already opened: the runtime, the
 * read models and the HTTP API, with its body handling and its OpenAPI
 * document. Bodies, before any route: a non-empty body that is not
 * `application/json` is refused (415); a JSON body is parsed up to the
 * limit (413 over it), an empty one is absent; no other parser is installed
 * (Nest's default JSON and form parsers are off). Not listening yet; the caller owns it and the stores.
 * `src/main.ts` starts the service with it, and the in-process tests too.
 */
export async function createServiceApp(options: {
  readonly config: ServiceConfig;
  readonly stores: OpenStores;
  /** Every agent: the agents file's and the plugins' (see `loadServiceDefinitions`). */
  readonly agents: readonly AgentDefinition[];
  /** The plugins' tools and model providers. @default none */
  readonly plugins?: LoadedPlugins;
  /** The bound MCP servers, started and checked (`startServiceMcpServers`); the caller closes them after the application. @default none */
  readonly mcp?: McpServers | null;
  /** Nest's logger (`false`: none). @default Nest's console logger */
  readonly logger?: LoggerService | false;
}): Promise<NestExpressApplication> {
  const { config, stores, agents, plugins, mcp, logger } = options;
  const auditStore = stores.auditStore === stores.runStore ? undefined : stores.auditStore;
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot({ config, store: stores.runStore, auditStore, agents, plugins, mcp }), {
    bodyParser: false,
    ...(logger === undefined ? {} : { logger }),
  });
  setUpAgentLedgerHttp(app);
  return app;
}
