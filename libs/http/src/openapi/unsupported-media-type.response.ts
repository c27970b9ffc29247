import type { OpenAPIObject, ResponseObject } from '@nestjs/swagger';
import { API_ERROR_BODY_SCHEMA, componentRef } from './contract-schemas';

/** The name of the shared 415 response in `components.responses`. */
export const UNSUPPORTED_MEDIA_TYPE_RESPONSE = 'UnsupportedMediaType';

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace'] as const;

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

/**
 * Adds the 415 answer to every operation of `document`, as one shared
 * response (`#/components/responses/UnsupportedMediaType`): the body check
 * runs before any route (`http/bodies/refuse-unreadable-bodies.ts`), so a
 * route added later answers it too without declaring it.
 */
export function withUnsupportedMediaTypeResponses(document: OpenAPIObject): OpenAPIObject {
  const components = document.components ?? {};
  document.components = { ...components, responses: { ...components.responses, [UNSUPPORTED_MEDIA_TYPE_RESPONSE]: unsupportedMediaTypeResponse() } };
  for (const item of Object.values(document.paths)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (operation !== undefined) operation.responses['415'] = { $ref: `#/components/responses/${UNSUPPORTED_MEDIA_TYPE_RESPONSE}` };
    }
  }
  return document;
}
