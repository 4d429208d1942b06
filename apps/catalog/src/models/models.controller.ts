import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { CatalogPatterns, ListModelsRequest, LoadModelsRequest, ModelIdRequest, type LoadModelsResponse, type ModelRoute, type PublicModel } from '@waggle/contracts';
import { ModelsService } from './models.service';

@Controller()
export class ModelsController {
  constructor(private readonly models: ModelsService) {}

  @MessagePattern(CatalogPatterns.listModels)
  list(@Payload() request: ListModelsRequest): Promise<PublicModel[]> {
    return this.models.list(request.provider_view);
  }

  @MessagePattern(CatalogPatterns.getModelRoute)
  route(@Payload() request: ModelIdRequest): Promise<ModelRoute> {
    return this.models.route(request.model_id);
  }

  @MessagePattern(CatalogPatterns.loadModels)
  load(@Payload() request: LoadModelsRequest): Promise<LoadModelsResponse> {
    return this.models.load(request.yaml, { force: request.force });
  }
}
