import type { INestApplication } from '@nestjs/common';
import { Injectable } from '@nestjs/common';
import type { OpenAPIObject } from '@nestjs/swagger';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { API_KEY_HEADER_SCHEME, BEARER_SCHEME } from '../auth/auth.decorators';
import { withContractSchemas } from './contract-schemas';
import { withBodyRefusalResponses } from './body-refusal.responses';

/** The version of the HTTP API's contract (not of the package): raised when a route or a body changes incompatibly. */
export const HTTP_API_VERSION = '1.0.0';

/**
 * The OpenAPI 3 document of the service: `@nestjs/swagger` builds its
 * operations from the controllers (routes, tags, summaries, the statuses
 * each declares with its description, the `@RequireScope` security), then
 * every body (answers, request bodies, query parameters, the error body)
 * is the client's contract's schema (`@agent-ledger/client`, see
 * {@link withContractSchemas}); every operation answers the refusals of the
 * body checks that run before any route: 415 to a body that is not JSON, 413
 * to a body over the limit, 400 to a body that is not valid JSON
 * ({@link withBodyRefusalResponses}).
 */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('agent-ledger')
    .setDescription(
      'An event-sourced runtime for AI agent runs. Every route but /health and /ready needs an API key ' +
        '(`Authorization: Bearer <key>` or `X-API-Key: <key>`); `x-required-scopes` lists the scopes a route accepts (any one). ' +
        'Request bodies are `application/json` only: on every route, any other non-empty body is refused with 415, a body over the limit with 413, and one that is not valid JSON with 400.',
    )
    .setVersion(HTTP_API_VERSION)
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'API key', description: 'An API key: `Authorization: Bearer <key>`' }, BEARER_SCHEME)
    .addApiKey({ type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'An API key, in the X-API-Key header' }, API_KEY_HEADER_SCHEME)
    .build();
  return withBodyRefusalResponses(withContractSchemas(SwaggerModule.createDocument(app, config)));
}

/** Holds the document built at start-up (after the application is created) for `GET /openapi.json`. */
@Injectable()
export class OpenApiDocumentHolder {
  private document: OpenAPIObject | null = null;

  set(document: OpenAPIObject): void {
    this.document = document;
  }

  get(): OpenAPIObject | null {
    return this.document;
  }
}
