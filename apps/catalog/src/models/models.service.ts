import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import type { LoadModelsResponse, ModelPriceView, ModelPricing, ModelRoute, PublicModel, SetModelPriceRequest } from '@waggle/contracts';
import { WaggleException } from '@waggle/errors';
import { readFile } from 'node:fs/promises';
import { defaultModelCatalogPath, ModelCatalogFileError, parseModelCatalog, type ModelCatalogFile } from './model-catalog-file';
import type { ModelEntity } from './entities/model.entity';
import { ModelsRepository, type PricedModel } from './models.repository';

/** How long one replica serves the listing from memory before asking the database again. */
export const MODEL_LIST_CACHE_MS = 5_000;
const LISTED_TYPES = ['llm', 'image_generation'] as const;

/** "2026.11.10" > "2026.11.9": dotted versions compare numerically, part by part. */
export function compareCatalogVersions(a: string, b: string): number {
  const left = a.split('.').map(Number);
  const right = b.split('.').map(Number);
  for (let index = 0; index < Math.max(left.length, right.length); index += 1) {
    const difference = (left[index] ?? 0) - (right[index] ?? 0);
    if (difference !== 0) return Math.sign(difference);
  }
  return 0;
}

export type ProviderView = 'serving' | 'maker';

function toPublicModel(model: ModelEntity, view: ProviderView): PublicModel {
  return {
    id: model.id,
    name: model.name,
    slug: model.slug,
    provider: view === 'serving' ? model.provider : model.maker,
    provider_name: view === 'serving' ? model.providerName : model.makerName,
    context_limit: model.contextLimit,
    model_type: model.modelType as PublicModel['model_type'],
    is_image_generation: model.modelType === 'image_generation',
    is_vision: model.isVision,
    is_reasoning: model.isReasoning,
    is_tool_calling: model.isToolCalling,
    is_json_schema: model.isJsonSchema,
  };
}

function toPriceView(model: PricedModel): ModelPriceView {
  return {
    model: model.id,
    name: model.name,
    pricing: model.override_pricing ?? model.pricing,
    source: model.override_pricing ? 'operator' : 'catalog',
    catalog_pricing: model.pricing,
  };
}

@Injectable()
export class ModelsService implements OnApplicationBootstrap {
  private readonly logger = new Logger(ModelsService.name);
  /** Both views of the listing, built once per refresh rather than on every request. */
  private cache?: { views: Record<ProviderView, PublicModel[]>; expiresAt: number };

  constructor(private readonly models: ModelsRepository) {}

  /** A new image brings its catalog file: load it when it is newer than the one in force. */
  async onApplicationBootstrap(): Promise<void> {
    const result = await this.load(await readFile(defaultModelCatalogPath(), 'utf8'), { onlyIfNewer: true });
    if (result.loaded) this.logger.log({ msg: 'loaded the shipped model catalog', ...result });
  }

  /** Active chat and image models, as the public listing shows them. */
  async list(view: ProviderView): Promise<PublicModel[]> {
    const now = Date.now();
    if (!this.cache || this.cache.expiresAt <= now) {
      const models = await this.models.listActive(LISTED_TYPES);
      this.cache = {
        views: {
          serving: models.map((model) => toPublicModel(model, 'serving')),
          maker: models.map((model) => toPublicModel(model, 'maker')),
        },
        expiresAt: now + MODEL_LIST_CACHE_MS,
      };
    }
    return this.cache.views[view];
  }

  /** Any stored model, deprecated and embedding ones included: callers decide what to refuse. */
  async route(id: string): Promise<ModelRoute> {
    const model = await this.priced(id);
    return {
      id: model.id,
      name: model.name,
      provider: model.provider,
      provider_name: model.provider_name,
      provider_api: model.provider_api as ModelRoute['provider_api'],
      provider_model_id: model.provider_model_id,
      model_type: model.model_type,
      is_vision: model.is_vision,
      is_tool_calling: model.is_tool_calling,
      is_json_schema: model.is_json_schema,
      context_limit: model.context_limit,
      status: model.status,
      pricing: model.override_pricing ?? model.pricing,
    };
  }

  /** The effective prices of the listed models (active chat and image models), as a workspace may read them. */
  async listPrices(): Promise<ModelPriceView[]> {
    return (await this.models.listPricedActive(LISTED_TYPES)).map(toPriceView);
  }

  /** Any stored model's prices. */
  async price(id: string): Promise<ModelPriceView> {
    return toPriceView(await this.priced(id));
  }

  /**
   * The operator's price for a model, in force for every run that looks the model up after
   * it (runners cache a model's route for ROUTE_CACHE_MS, so within 10 s on every replica).
   */
  async setPrice(request: SetModelPriceRequest): Promise<ModelPriceView> {
    await this.priced(request.model_id);
    const pricing: ModelPricing = {
      input: request.input,
      cached_input: request.cached_input ?? request.input,
      cache_write: request.cache_write ?? request.input,
      output: request.output,
      reasoning: request.reasoning ?? null,
      price_version: request.price_version,
    };
    await this.models.setPriceOverride(request.model_id, pricing);
    return this.price(request.model_id);
  }

  async resetPrice(id: string): Promise<ModelPriceView> {
    await this.priced(id);
    await this.models.deletePriceOverride(id);
    return this.price(id);
  }

  private async priced(id: string): Promise<PricedModel> {
    const model = await this.models.findPriced(id);
    if (!model) throw new WaggleException('resource_not_found', { detail: 'model_not_found', params: { id } });
    return model;
  }

  /**
   * Replaces the catalog with a file's models in one transaction. The same version is
   * not loaded twice unless forced; with `onlyIfNewer`, only a newer version loads.
   */
  async load(yamlText: string, options: { force?: boolean; onlyIfNewer?: boolean } = {}): Promise<LoadModelsResponse> {
    let file: ModelCatalogFile;
    try {
      file = parseModelCatalog(yamlText);
    } catch (error) {
      if (error instanceof ModelCatalogFileError)
        throw new WaggleException('validation_error', { detail: 'model_catalog_invalid', details: error.problems });
      throw error;
    }
    const current = await this.models.currentVersion();
    const listedCount = file.models.filter(
      (model) => model.status === 'active' && (LISTED_TYPES as readonly string[]).includes(model.modelType),
    ).length;
    const skip =
      current !== undefined &&
      (options.onlyIfNewer ? compareCatalogVersions(file.version, current) <= 0 : current === file.version && !options.force);
    if (skip) return { version: current, loaded: false, model_count: file.models.length, listed_count: listedCount };

    const providers = new Map(file.providers.map((provider) => [provider.key, provider]));
    const makers = new Map(file.makers.map((maker) => [maker.key, maker.name]));
    await this.models.replaceCatalog(
      file.version,
      file.models.map((model) => ({
        id: model.id,
        name: model.name,
        slug: model.slug,
        provider: model.provider,
        providerName: providers.get(model.provider)?.name ?? model.provider,
        providerApi: providers.get(model.provider)?.api ?? 'openai-compatible',
        maker: model.maker,
        makerName: makers.get(model.maker) ?? model.maker,
        providerModelId: model.providerModelId,
        modelType: model.modelType,
        contextLimit: model.contextLimit,
        isVision: model.isVision,
        isReasoning: model.isReasoning,
        isToolCalling: model.isToolCalling,
        isJsonSchema: model.isJsonSchema,
        status: model.status,
        pricing: model.pricing,
        catalogVersion: file.version,
      })),
    );
    this.cache = undefined;
    return { version: file.version, loaded: true, model_count: file.models.length, listed_count: listedCount };
  }
}
