import type { OpenAPIObject, OperationObject, ResponseObject } from '@nestjs/swagger';
import { API_ERROR_BODY_SCHEMA, componentRef } from './contract-schemas';

/** The name of the shared 415 response in `components.responses`. */
export const UNSUPPORTED_MEDIA_TYPE_RESPONSE = 'UnsupportedMediaType';
/** The name of the shared 413 response in `components.responses`. */
export const PAYLOAD_TOO_LARGE_RESPONSE = 'PayloadTooLarge';
/** The name of the shared 400 response of a body that is not valid JSON, in `components.responses`. */
export const MALFORMED_JSON_RESPONSE = 'MalformedJson';

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace'] as const;
const BEFORE_ANY_HANDLER = 'on any route, whether it takes a body or not; refused before any handler: nothing is recorded';

function unsupportedMediaTypeResponse(): ResponseObject {
  return {
    description:
      'a non-empty body that is not `application/json` (`text/plain`, a form, multipart, XML, `application/*+json`, no Content-Type), on any route, whether it takes a body or not (`UNSUPPORTED_MEDIA_TYPE`, ' +
      '`field: Content-Type`, `rule: mediaType`, the media type `received` (`none` without a Content-Type) and the one `expected`); a JSON body whose charset is not a UTF (`CHARSET_UNSUPPORTED`). Refused before any handler: nothing is recorded',
    content: {
      'application/json': {
        schema: {
          allOf: [
            componentRef(API_ERROR_BODY_SCHEMA),
            {
              type: 'object',
              properties: {
                received: { type: 'string', description: 'The media type received, without parameters; `none` when the request had no Content-Type', example: 'text/plain' },
                expected: { type: 'string', enum: ['application/json'] },
              },
            },
          ],
        },
      },
    },
  };
}

function errorResponse(description: string): ResponseObject {
  return { description, content: { 'application/json': { schema: componentRef(API_ERROR_BODY_SCHEMA) } } };
}

const MALFORMED_JSON = 'a JSON body that is not valid JSON (`MALFORMED_JSON`)';

/**
 * Adds the answers of the body checks, which run before any route
 * (`http/bodies/`), to every operation of `document`, so that a route added
 * later answers them too without declaring them: 415 to a body that is not
 * JSON and 413 to a body over the limit (each one shared response,
 * `#/components/responses/...`), and 400 to a body that is not valid JSON
 * (the shared response where the operation declares no 400 of its own; its
 * own 400's description says so otherwise).
 */
export function withBodyRefusalResponses(document: OpenAPIObject): OpenAPIObject {
  const components = document.components ?? {};
  document.components = {
    ...components,
    responses: {
      ...components.responses,
      [UNSUPPORTED_MEDIA_TYPE_RESPONSE]: unsupportedMediaTypeResponse(),
      [PAYLOAD_TOO_LARGE_RESPONSE]: errorResponse(`a body over \`HTTP_BODY_LIMIT_BYTES\` (\`PAYLOAD_TOO_LARGE\`), ${BEFORE_ANY_HANDLER}`),
      [MALFORMED_JSON_RESPONSE]: errorResponse(`${MALFORMED_JSON}, ${BEFORE_ANY_HANDLER}`),
    },
  };
  for (const item of Object.values(document.paths)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (operation !== undefined) addBodyRefusals(operation);
    }
  }
  return document;
}

function addBodyRefusals(operation: OperationObject): void {
  const own = operation.responses['400'];
  if (own === undefined) operation.responses['400'] = { $ref: `#/components/responses/${MALFORMED_JSON_RESPONSE}` };
  else if (!('$ref' in own) && !own.description.includes('MALFORMED_JSON')) own.description = `${own.description}; ${MALFORMED_JSON}`;
  operation.responses['413'] = { $ref: `#/components/responses/${PAYLOAD_TOO_LARGE_RESPONSE}` };
  operation.responses['415'] = { $ref: `#/components/responses/${UNSUPPORTED_MEDIA_TYPE_RESPONSE}` };
}
