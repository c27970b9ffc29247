import type { Infer } from './schema';
import { s } from './schema';
import { agentToolSourceSchema } from './agents-answer';
import { TOOL_EFFECTS } from './vocabulary';

const specObject = (description: string) => s.record(s.unknown()).describe(description);

/** One tool of an agent as the document describes it: what the model is offered, its effect, and where the effect was declared. */
export const documentedToolSchema = s.object({
  name: s.string(),
  effect: s.enum(TOOL_EFFECTS).describe('From the tool registry: the effect its calls run with'),
  source: s.nullable(agentToolSourceSchema).describe('Where the tool and its effect come from; null for a name no tool is registered under'),
  description: s.nullable(s.string()),
  parameters: s.nullable(s.record(s.unknown())).describe("The JSON schema its arguments are checked against (null for a name no tool is registered under)"),
});

/** {@link documentedToolSchema}'s type. */
export type DocumentedTool = Infer<typeof documentedToolSchema>;

/** One agent as the document describes it, for a caller that may use it. */
export const documentedAgentSchema = s.object({
  name: s.string(),
  description: s.nullable(s.string()),
  tools: s.array(documentedToolSchema),
  preApproved: s.array(s.string()).describe('Write tools that execute without a person\'s approval'),
});

/** {@link documentedAgentSchema}'s type. */
export type DocumentedAgent = Infer<typeof documentedAgentSchema>;

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
    'x-agent-ledger-agents': s
      .optional(s.array(documentedAgentSchema))
      .describe("The agents the caller's key may use, with their tools (built-in or a plugin's), by name"),
  })
  .named('OpenApiDocument')
  .describe('The OpenAPI 3 document of this API (https://spec.openapis.org/oas/v3.0.3)');

/** {@link openApiDocumentSchema}'s type. */
export type OpenApiDocument = Infer<typeof openApiDocumentSchema>;
