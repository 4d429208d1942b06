import { Controller, Get, Param, Req } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { AgentPatterns, InvocationPatterns, send } from '@waggle/contracts';
import { NatsRpcClient } from '@waggle/platform';
import type { AuthenticatedRequest } from '../auth/authenticated-request';
import { MeteredApiRoute } from '../auth/authenticated.decorator';
import { modelNotFound } from './openai-runs';

export interface OpenAiModel {
  id: string;
  object: 'model';
  created: number;
  owned_by: 'waggle';
}

const seconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);

/**
 * `GET /openai/v1/models` and `GET /openai/v1/models/{id}` (decisions): every prompt deployment
 * variant (with a deployed version) and every active agent of the key's workspace, as the model
 * ids the other endpoints take. Agents are listed by id: a name may be shared.
 */
@ApiExcludeController()
@Controller()
@MeteredApiRoute()
export class OpenAiModelsController {
  constructor(private readonly rpc: NatsRpcClient) {}

  @Get('openai/v1/models')
  async list(@Req() request: AuthenticatedRequest): Promise<{ object: 'list'; data: OpenAiModel[] }> {
    return { object: 'list', data: await this.models(request.auth.workspace_id) };
  }

  /** Ids hold `/`: the path's remaining segments are the id. */
  @Get('openai/v1/models/*id')
  async get(@Param('id') segments: string[] | string, @Req() request: AuthenticatedRequest): Promise<OpenAiModel> {
    const id = Array.isArray(segments) ? segments.join('/') : segments;
    const model = (await this.models(request.auth.workspace_id)).find((candidate) => candidate.id === id);
    if (!model) throw modelNotFound(id);
    return model;
  }

  private async models(workspaceId: string): Promise<OpenAiModel[]> {
    const [prompts, agents] = await Promise.all([
      send(this.rpc, InvocationPatterns.listPrompts, { workspace_id: workspaceId }),
      send(this.rpc, AgentPatterns.listAgents, { workspace_id: workspaceId }),
    ]);
    const model = (id: string, created: string): OpenAiModel => ({ id, object: 'model', created: seconds(created), owned_by: 'waggle' });
    return [
      ...prompts.flatMap((prompt) =>
        prompt.variants
          .filter((variant) => variant.version !== null)
          .map((variant) => model(`prompt/${prompt.deployment}/${variant.name}`, prompt.created_at)),
      ),
      ...agents.map((agent) => model(`agent/${agent.id}`, agent.created_at)),
    ];
  }
}
