import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import type { InfoObject, OpenAPIObject } from '@nestjs/swagger';
import type { DocMatches } from './doc-matches';

/** An object of the OpenAPI specification, described there rather than here. */
function specObject(description: string) {
  return { type: 'object', additionalProperties: true, description } as const;
}

/** The Info Object of the document. */
@ApiSchema({ name: 'OpenApiInfo', description: 'The Info Object: title, description and the version of the HTTP API contract' })
export class OpenApiInfoDoc implements InfoObject {
  @ApiProperty({ type: String, example: 'agent-ledger' })
  readonly title!: string;

  @ApiPropertyOptional({ type: String })
  readonly description?: string;

  @ApiPropertyOptional({ type: String })
  readonly termsOfService?: string;

  @ApiPropertyOptional(specObject('A Contact Object'))
  readonly contact?: InfoObject['contact'];

  @ApiPropertyOptional(specObject('A License Object'))
  readonly license?: InfoObject['license'];

  @ApiProperty({ type: String, description: 'The version of the HTTP API contract (not of the package)', example: '1.0.0' })
  readonly version!: string;
}

/** {@link OpenAPIObject} (`GET /openapi.json`) in the OpenAPI document: its top level, each member as the OpenAPI 3 specification defines it. */
@ApiSchema({ name: 'OpenApiDocument', description: 'The OpenAPI 3 document of this API (https://spec.openapis.org/oas/v3.0.3)' })
export class OpenApiDocumentDoc {
  @ApiProperty({ type: String, example: '3.0.0' })
  readonly openapi!: string;

  @ApiProperty({ type: OpenApiInfoDoc })
  readonly info!: OpenApiInfoDoc;

  @ApiPropertyOptional({ type: 'array', items: specObject('A Server Object') })
  readonly servers?: OpenAPIObject['servers'];

  @ApiProperty(specObject('The Paths Object: every route, by path then method'))
  readonly paths!: OpenAPIObject['paths'];

  @ApiPropertyOptional(specObject('The Webhooks Object'))
  readonly webhooks?: OpenAPIObject['webhooks'];

  @ApiPropertyOptional(specObject('The Components Object: schemas and security schemes'))
  readonly components?: OpenAPIObject['components'];

  @ApiPropertyOptional({ type: 'array', items: specObject('A Security Requirement Object') })
  readonly security?: OpenAPIObject['security'];

  @ApiPropertyOptional({ type: 'array', items: specObject('A Tag Object') })
  readonly tags?: OpenAPIObject['tags'];

  @ApiPropertyOptional(specObject('An External Documentation Object'))
  readonly externalDocs?: OpenAPIObject['externalDocs'];
}

const _info: DocMatches<OpenApiInfoDoc, InfoObject> = true;
const _matches: DocMatches<OpenApiDocumentDoc, OpenAPIObject> = true;
