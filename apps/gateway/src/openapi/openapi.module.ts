import { Module } from '@nestjs/common';
import { OpenApiController, OpenApiDocumentHolder } from './openapi.controller';

/** `GET /v1/public/openapi.json`, built once from the routes at start-up. */
@Module({ controllers: [OpenApiController], providers: [OpenApiDocumentHolder], exports: [OpenApiDocumentHolder] })
export class OpenApiModule {}
