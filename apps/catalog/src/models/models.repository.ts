import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataRepository, defineSql, snakeCase, sql, type RowOf } from '@waggle/database';
import { In, type DataSource } from 'typeorm';
import { CatalogVersionEntity } from './entities/catalog-version.entity';
import { ModelEntity } from './entities/model.entity';

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

  findById(id: string): Promise<ModelEntity | null> {
    return this.table(ModelEntity).findOneBy({ id });
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
