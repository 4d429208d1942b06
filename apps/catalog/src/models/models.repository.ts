import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, type Repository } from 'typeorm';
import { CatalogVersionEntity } from './catalog-version.entity';
import { ModelEntity } from './model.entity';

/** Every query of the model catalog and its loaded versions. */
@Injectable()
export class ModelsRepository {
  constructor(
    @InjectRepository(ModelEntity) private readonly models: Repository<ModelEntity>,
    @InjectRepository(CatalogVersionEntity) private readonly versions: Repository<CatalogVersionEntity>,
  ) {}

  /** Active models of these types, by provider then name. */
  listActive(modelTypes: readonly string[]): Promise<ModelEntity[]> {
    return this.models.find({ where: { status: 'active', modelType: In([...modelTypes]) }, order: { provider: 'ASC', name: 'ASC' } });
  }

  findById(id: string): Promise<ModelEntity | null> {
    return this.models.findOneBy({ id });
  }

  /** The version of the catalog loaded last, or undefined before the first load. */
  async currentVersion(): Promise<string | undefined> {
    const [latest] = await this.versions.find({ order: { loadedAt: 'DESC' }, take: 1 });
    return latest?.version;
  }

  /** Replaces every model with these, and records the version, in one transaction. */
  replaceCatalog(version: string, models: ModelEntity[]): Promise<void> {
    return this.models.manager.transaction(async (manager) => {
      await manager.clear(ModelEntity);
      await manager.insert(ModelEntity, models);
      await manager.upsert(CatalogVersionEntity, { version, modelCount: models.length, loadedAt: new Date() }, ['version']);
    });
  }
}
