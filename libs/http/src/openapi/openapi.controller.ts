import { Controller, Get, NotFoundException } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { OpenAPIObject } from '@nestjs/swagger';
import { Authenticated } from '../auth/auth.decorators';
import { OpenApiDocumentHolder } from './openapi-document';

/** `GET /openapi.json`: the OpenAPI document of this API (any valid key). */
@ApiTags('service')
@Controller()
export class OpenApiController {
  constructor(private readonly holder: OpenApiDocumentHolder) {}

  @Get('openapi.json')
  @Authenticated()
  @ApiOperation({ summary: 'The OpenAPI 3 document of this API' })
  @ApiOkResponse({ description: 'the document' })
  document(): OpenAPIObject {
    const document = this.holder.get();
    if (document === null) throw new NotFoundException('The OpenAPI document is not built');
    return document;
  }
}
