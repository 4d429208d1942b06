import SwaggerParser from '@apidevtools/swagger-parser';
import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { ModulesContainer } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { loadConfig } from '@waggle/platform';
import { createGatewayApp } from '../src/bootstrap';
import { GatewayEnv } from '../src/config/gateway.env';

/** Every route the gateway's controllers declare, as "get /v1/public/models". */
function declaredRoutes(app: NestExpressApplication): string[] {
  const routes: string[] = [];
  for (const module of app.get(ModulesContainer).values()) {
    for (const { metatype } of module.controllers.values()) {
      if (!metatype) continue;
      const base = String(Reflect.getMetadata(PATH_METADATA, metatype) ?? '');
      for (const name of Object.getOwnPropertyNames(metatype.prototype)) {
        const handler = (metatype.prototype as Record<string, unknown>)[name];
        if (name === 'constructor' || typeof handler !== 'function' || Reflect.getMetadata(PATH_METADATA, handler) === undefined) continue;
        const path = `/${[base, String(Reflect.getMetadata(PATH_METADATA, handler))].join('/')}`.replace(/\/+/g, '/').replace(/\/$/, '');
        const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as number].toLowerCase();
        routes.push(`${method} ${path.replace(/:(\w+)/g, '{$1}')}`);
      }
    }
  }
  return routes;
}

describe('GET /v1/public/openapi.json', () => {
  let app: NestExpressApplication;
  let document: { openapi: string; info: { version: string }; paths: Record<string, Record<string, unknown>> };

  beforeAll(async () => {
    app = await createGatewayApp(loadConfig(GatewayEnv));
    await app.listen(0, '127.0.0.1');
    const response = await fetch(`${await app.getUrl()}/v1/public/openapi.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/application\/json/);
    document = (await response.json()) as typeof document;
  });

  afterAll(async () => {
    await app?.close();
  });

  it('is a valid OpenAPI 3.1 document of version v1, served without a key', async () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.info.version).toBe('v1');
    await expect(SwaggerParser.validate(structuredClone(document) as never)).resolves.toBeDefined();
  });

  it('describes every implemented /v1/public/* route, and nothing else', () => {
    const publicRoutes = declaredRoutes(app).filter((route) => route.split(' ')[1].startsWith('/v1/public/'));
    expect(publicRoutes).toContain('get /v1/public/models');
    const documented = Object.entries(document.paths).flatMap(([path, operations]) =>
      Object.keys(operations).map((method) => `${method} ${path}`),
    );
    expect(documented.sort()).toEqual(publicRoutes.sort());
  });

  it('describes the model listing with the twelve fields', () => {
    const components = (
      document as unknown as { components: { schemas: Record<string, { properties: Record<string, unknown>; required: string[] }> } }
    ).components;
    expect(Object.keys(components.schemas.PublicModelDto.properties).sort()).toEqual([
      'context_limit',
      'id',
      'is_image_generation',
      'is_json_schema',
      'is_reasoning',
      'is_tool_calling',
      'is_vision',
      'model_type',
      'name',
      'provider',
      'provider_name',
      'slug',
    ]);
    expect(components.schemas.PublicModelDto.required).toHaveLength(12);
  });

  it("describes the agent routes, the agent record's sixteen fields and the create body's required three", () => {
    expect(Object.keys(document.paths['/v1/public/workspaces/{workspace_id}/agents']).sort()).toEqual(['get', 'post']);
    expect(Object.keys(document.paths['/v1/public/workspaces/{workspace_id}/agents/{id}']).sort()).toEqual(['delete', 'get', 'patch']);
    const schemas = (
      document as unknown as { components: { schemas: Record<string, { properties: Record<string, unknown>; required?: string[] }> } }
    ).components.schemas;
    const record = [
      'id',
      'name',
      'description',
      'llm_model',
      'model_type',
      'instruction_prompt',
      'temperature',
      'max_token',
      'max_thinking_token',
      'provider_prompt_cache_ttl',
      'reasoning_effort',
      'tool_choice',
      'max_tool_calls',
      'status',
      'created_at',
      'updated_at',
    ];
    expect(Object.keys(schemas.AgentDto.properties)).toEqual(record);
    expect(schemas.AgentDto.required).toEqual(record);
    expect(schemas.CreateAgentFieldsDoc.required).toEqual(['name', 'llm_model', 'model_type']);
    expect(Object.keys(schemas.CreateAgentFieldsDoc.properties).sort()).toEqual(
      record.filter((field) => !['id', 'status', 'created_at', 'updated_at'].includes(field)).sort(),
    );
    expect(schemas.UpdateAgentFieldsDoc.required ?? []).toEqual([]);
  });
});
