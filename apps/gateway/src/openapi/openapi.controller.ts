import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiTags, type OpenAPIObject } from '@nestjs/swagger';

/** Holds the document built once at start-up (see bootstrap). */
export class OpenApiDocumentHolder {
  document?: OpenAPIObject;
}

@ApiTags('meta')
@Controller('v1/public/openapi.json')
export class OpenApiController {
  constructor(private readonly holder: OpenApiDocumentHolder) {}

  /** This document: OpenAPI 3.1, no authentication. */
  @Get()
  @ApiOkResponse({ description: 'The OpenAPI 3.1 document of the /v1/public/* endpoints' })
  document(): OpenAPIObject | undefined {
    return this.holder.document;
  }
}
