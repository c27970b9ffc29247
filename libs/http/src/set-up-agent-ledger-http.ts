import type { IncomingMessage, ServerResponse } from 'node:http';
import type { INestApplication } from '@nestjs/common';
import { AbsentJsonBodies } from './bodies/absent-json-bodies';
import { refuseUnreadableBodies } from './bodies/refuse-unreadable-bodies';
import type { HttpApiOptions } from './http-api-options';
import { HTTP_API_OPTIONS } from './http-api-options';
import { buildOpenApiDocument, OpenApiDocumentHolder } from './openapi/openapi-document';
import { traceRequests } from './tracing/trace-requests';

/**
 * What {@link setUpAgentLedgerHttp} needs of the application: a Nest
 * application on Express, whose JSON body parser it installs.
 * `NestExpressApplication` (`@nestjs/platform-express`, `NestFactory.create<NestExpressApplication>(...)`)
 * is one. Described here rather than imported, so that these declarations
 * compile without Express's types (`@types/express`) in a project that
 * checks its libraries' declarations (`skipLibCheck: false`).
 */
export interface AgentLedgerHttpApplication extends INestApplication {
  /** Express's body parser of that type, with these options (`NestExpressApplication.useBodyParser`). */
  useBodyParser(
    parser: 'json',
    options: { readonly limit: number; readonly verify: (request: IncomingMessage, response: ServerResponse, bytes: Buffer) => void },
  ): unknown;
}

/**
 * Readies an application that imports the HTTP API (`AgentLedgerHttpModule`,
 * or the service's `AppModule`), before it listens. First, a server span a
 * request, continuing the caller's W3C `traceparent` (a no-op without an
 * OpenTelemetry SDK). Bodies, before any route:
 * a non-empty body that is not `application/json` is refused (415); a JSON
 * body is parsed up to `httpBodyLimitBytes` (413 over it), an empty one is
 * absent. Create the application with `bodyParser: false` so that no other
 * parser runs first. Then builds the OpenAPI document of every route for
 * `GET /openapi.json`.
 */
export function setUpAgentLedgerHttp(app: AgentLedgerHttpApplication): void {
  const options = app.get<HttpApiOptions>(HTTP_API_OPTIONS);
  app.use(traceRequests());
  app.use(refuseUnreadableBodies({ discardLimitBytes: options.httpBodyLimitBytes }));
  const absentBodies = new AbsentJsonBodies();
  app.useBodyParser('json', { limit: options.httpBodyLimitBytes, verify: absentBodies.verify });
  app.use(absentBodies.middleware);
  app.get(OpenApiDocumentHolder).set(buildOpenApiDocument(app));
}
