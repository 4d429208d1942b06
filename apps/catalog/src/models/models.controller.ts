import { Controller } from '@nestjs/common';
import {
  CatalogPatterns,
  ListModelsRequest,
  LoadModelsRequest,
  ModelIdRequest,
  SetModelPriceRequest,
  type LoadModelsResponse,
  type ModelPriceView,
  type ModelRoute,
  type PublicModel,
} from '@waggle/contracts';
import { RpcHandler } from '@waggle/platform';
import { ModelsService } from './models.service';

@Controller()
export class ModelsController {
  constructor(private readonly models: ModelsService) {}

  @RpcHandler(CatalogPatterns.listModels)
  list(request: ListModelsRequest): Promise<PublicModel[]> {
    return this.models.list(request.provider_view);
  }

  @RpcHandler(CatalogPatterns.getModelRoute)
  route(request: ModelIdRequest): Promise<ModelRoute> {
    return this.models.route(request.model_id);
  }

  @RpcHandler(CatalogPatterns.listModelPrices)
  listPrices(): Promise<ModelPriceView[]> {
    return this.models.listPrices();
  }

  @RpcHandler(CatalogPatterns.getModelPrice)
  price(request: ModelIdRequest): Promise<ModelPriceView> {
    return this.models.price(request.model_id);
  }

  @RpcHandler(CatalogPatterns.setModelPrice)
  setPrice(request: SetModelPriceRequest): Promise<ModelPriceView> {
    return this.models.setPrice(request);
  }

  @RpcHandler(CatalogPatterns.resetModelPrice)
  resetPrice(request: ModelIdRequest): Promise<ModelPriceView> {
    return this.models.resetPrice(request.model_id);
  }

  @RpcHandler(CatalogPatterns.loadModels)
  load(request: LoadModelsRequest): Promise<LoadModelsResponse> {
    return this.models.load(request.yaml, { force: request.force });
  }
}
