import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { ModelPricing } from '@waggle/contracts';
import { DataRepository, defineSql, snakeCase, sql, type RowOf } from '@waggle/database';
import { In, type DataSource } from 'typeorm';
import { CatalogVersionEntity } from './entities/catalog-version.entity';
import { ModelPriceOverrideEntity } from './entities/model-price-override.entity';
import { ModelEntity } from './entities/model.entity';

/** A model with the operator's price for it, when one is set. */
export type PricedModel = RowOf<ModelEntity> & { override_pricing: ModelPricing | null };

const PRICED = `SELECT m.*, o."pricing" AS "override_pricing"
    FROM "catalog"."models" m LEFT JOIN "catalog"."model_price_overrides" o ON o."model_id" = m."id"`;

const SQL = defineSql(__filename, {
  deleteModels: sql(`DELETE FROM "catalog"."models"`),
  /** $1: a JSON array of model rows (RowOf<ModelEntity>). */
  insertModels: sql(`
    INSERT INTO "catalog"."models"
    SELECT * FROM json_populate_recordset(NULL::"catalog"."models", $1::json)`),
  /** $1 version, $2 its model count. */
  recordVersion: sql(`
    INSERT INTO "catalog"."catalog_versions" ("version", "model_count", "loaded_at") VALUES ($1, $2, now())
    ON CONFLICT ("version") DO UPDATE SET "model_count" = EXCLUDED."model_count", "loaded_at" = EXCLUDED."loaded_at"`),
  /** $1 model id: the model and its override, in one read (a route lookup). */
  pricedById: sql<PricedModel>(`
    ${PRICED}
    WHERE m."id" = $1`),
  /** $1 model types: the active ones, as the listing orders them, with their overrides. */
  pricedActive: sql<PricedModel>(`
    ${PRICED}
    WHERE m."status" = 'active' AND m."model_type" = ANY ($1::text[])
    ORDER BY m."provider", m."name"`),
  /** $1 model id, $2 pricing (JSON). */
  upsertOverride: sql(`
    INSERT INTO "catalog"."model_price_overrides" ("model_id", "pricing", "updated_at") VALUES ($1, $2::jsonb, now())
    ON CONFLICT ("model_id") DO UPDATE SET "pricing" = EXCLUDED."pricing", "updated_at" = EXCLUDED."updated_at"`),
});

/** The model's row as the database names its columns. */
function toRow(model: ModelEntity): RowOf<ModelEntity> {
  return Object.fromEntries(Object.entries(model).map(([property, value]) => [snakeCase(property), value])) as RowOf<ModelEntity>;
}

/** Every query of the model catalog: its models and the versions loaded. */
@Injectable()
export class ModelsRepository extends DataRepository {
  constructor(@InjectDataSource() dataSource: DataSource) {
    super(dataSource);
  }

  /** Active models of these types, by provider then name. */
  listActive(modelTypes: readonly string[]): Promise<ModelEntity[]> {
    return this.table(ModelEntity).find({
      where: { status: 'active', modelType: In([...modelTypes]) },
      order: { provider: 'ASC', name: 'ASC' },
    });
  }

  /** A stored model and the operator's price for it. */
  findPriced(id: string): Promise<PricedModel | null> {
    return this.row(SQL.pricedById, [id]);
  }

  /** Active models of these types, by provider then name, with the operator's prices. */
  listPricedActive(modelTypes: readonly string[]): Promise<PricedModel[]> {
    return this.rows(SQL.pricedActive, [[...modelTypes]]);
  }

  /** Sets (or replaces) the operator's price of a model; a catalog load never touches it. */
  async setPriceOverride(modelId: string, pricing: ModelPricing): Promise<void> {
    await this.execute(SQL.upsertOverride, [modelId, JSON.stringify(pricing)]);
  }

  /** Drops the operator's price: the catalog file's applies again. */
  async deletePriceOverride(modelId: string): Promise<void> {
    await this.table(ModelPriceOverrideEntity).delete({ modelId });
  }

  /** The version of the catalog loaded last, or undefined before the first load. */
  async currentVersion(): Promise<string | undefined> {
    const [latest] = await this.table(CatalogVersionEntity).find({ order: { loadedAt: 'DESC' }, take: 1 });
    return latest?.version;
  }

  /** Replaces every model with these, and records the version, in one transaction. */
  replaceCatalog(version: string, models: ModelEntity[]): Promise<void> {
    return this.transaction(async () => {
      await this.execute(SQL.deleteModels);
      await this.execute(SQL.insertModels, [JSON.stringify(models.map(toRow))]);
      await this.execute(SQL.recordVersion, [version, models.length]);
    });
  }
}
