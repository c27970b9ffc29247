import type { Infer } from './schema';
import { s } from './schema';

const specObject = (description: string) => s.record(s.unknown()).describe(description);

/** `GET /openapi.json`: the OpenAPI 3 document's top level; each member as the OpenAPI specification defines it. */
export const openApiDocumentSchema = s
  .object({
    openapi: s.string(),
    info: s
      .object({
        title: s.string(),
        description: s.optional(s.string()),
        termsOfService: s.optional(s.string()),
        contact: s.optional(specObject('A Contact Object')),
        license: s.optional(specObject('A License Object')),
        version: s.string().describe('The version of the HTTP API contract (not of the package)'),
      })
      .named('OpenApiInfo'),
    servers: s.optional(s.array(specObject('A Server Object'))),
    paths: specObject('The Paths Object: every route, by path then method'),
    webhooks: s.optional(specObject('The Webhooks Object')),
    components: s.optional(specObject('The Components Object: schemas and security schemes')),
    security: s.optional(s.array(specObject('A Security Requirement Object'))),
    tags: s.optional(s.array(specObject('A Tag Object'))),
    externalDocs: s.optional(specObject('An External Documentation Object')),
  })
  .named('OpenApiDocument')
  .describe('The OpenAPI 3 document of this API (https://spec.openapis.org/oas/v3.0.3)');

/** {@link openApiDocumentSchema}'s type. */
export type OpenApiDocument = Infer<typeof openApiDocumentSchema>;
