import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import { addMcpRoutes } from './mcp-routes';
import { addOpenAiRoutes } from './openai-routes';
import { addRunRoutes, RUN_ROUTE_MODELS } from './run-routes';

export const PUBLIC_PATH_PREFIX = '/v1/public/';
/**
 * Private routes documented all the same: the workspace's MCP servers (the spec's decisions, MCP)
 * usage governance's budgets, alerts, rate limits, credits, spend, model prices and provider credentials, and the request ledger's list.
 */
export const DOCUMENTED_PRIVATE_PREFIXES = [
  '/v1/private/mcp_servers',
  '/v1/private/budgets',
  '/v1/private/budget_alerts',
  '/v1/private/rate_limits',
  '/v1/private/credits',
  '/v1/private/spend',
  '/v1/private/model_prices',
  '/v1/private/provider_credentials',
  '/v1/private/datasets',
  '/v1/private/experiment_runs',
  // The request ledger's filtered list (the console's Runs screen).
  '/v1/private/requests',
  // A prompt variant's release routes; the rest of /v1/private/prompts is not documented.
  '/v1/private/prompts/{deployment}/variants/{variant}/',
];

/**
 * The OpenAPI 3.1 description of the `/v1/public/*` endpoints, generated from the gateway's
 * controllers and DTOs, so it lists exactly the routes that exist, and of the routes that start
 * a run (decisions D7), where the Idempotency-Key header and the background runs live, of the
 * OpenAI-compatible surface under /openai/v1 (its request bodies from the JSON Schemas it validates with),
 * and of the MCP server at /v1/mcp.
 */
export function buildPublicOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setOpenAPIVersion('3.1.0')
    .setTitle('Waggle public API')
    .setDescription(
      "Prompt deployments, workflows, agents, knowledge bases, assets and the model catalog of a workspace; an OpenAI-compatible surface under /openai/v1; the workspace's MCP servers (/v1/private/mcp_servers); and the workspace as an MCP server at /v1/mcp.",
    )
    .setVersion('v1')
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'wgl_ API key', description: 'A workspace API key' })
    .build();
  const document = SwaggerModule.createDocument(app, config, { extraModels: RUN_ROUTE_MODELS });
  document.paths = Object.fromEntries(
    Object.entries(document.paths).filter(
      ([path]) => path.startsWith(PUBLIC_PATH_PREFIX) || DOCUMENTED_PRIVATE_PREFIXES.some((prefix) => path.startsWith(prefix)),
    ),
  );
  addRunRoutes(document);
  addOpenAiRoutes(document);
  addMcpRoutes(document);
  return document;
}
