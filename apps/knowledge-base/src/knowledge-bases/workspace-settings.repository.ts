import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataRepository, defineSql, sql } from '@waggle/database';
import type { DataSource } from 'typeorm';
import { WorkspaceSettingEntity } from './entities/workspace-setting.entity';

const SQL = defineSql(__filename, {
  setEmbeddingModel: sql(`
    INSERT INTO "knowledge_base"."workspace_settings" ("workspace_id", "embedding_model", "updated_at") VALUES ($1, $2, now())
    ON CONFLICT ("workspace_id") DO UPDATE SET "embedding_model" = EXCLUDED."embedding_model", "updated_at" = now()`),
});

/** Every query of the workspaces' knowledge-base settings. */
@Injectable()
export class WorkspaceSettingsRepository extends DataRepository {
  constructor(@InjectDataSource() dataSource: DataSource) {
    super(dataSource);
  }

  /** The workspace's settings, or null when it has none (the defaults apply). */
  find(workspaceId: string): Promise<WorkspaceSettingEntity | null> {
    return this.table(WorkspaceSettingEntity).findOneBy({ workspaceId });
  }

  async setEmbeddingModel(workspaceId: string, embeddingModel: string): Promise<void> {
    await this.execute(SQL.setEmbeddingModel, [workspaceId, embeddingModel]);
  }
}
