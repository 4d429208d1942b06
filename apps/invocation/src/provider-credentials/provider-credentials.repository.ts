import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataRepository, defineSql, sql, type RowOf } from '@waggle/database';
import type { DataSource } from 'typeorm';
import { ProviderCredentialEntity } from './entities/provider-credential.entity';

/** What a save writes; the times are the database's. */
export type ProviderCredentialWrite = Pick<ProviderCredentialEntity, 'workspaceId' | 'provider' | 'apiKeySealed' | 'hint' | 'baseUrl'>;

const SQL = defineSql(__filename, {
  // Create or replace in one statement: two saves racing for one provider leave the last one, never an error.
  upsert: sql<RowOf<ProviderCredentialEntity> & { inserted: boolean }>(`
    INSERT INTO "invocation"."provider_credentials" AS c ("workspace_id", "provider", "api_key_sealed", "hint", "base_url")
    VALUES ($1, $2, $3, $4, $5)
    ON CONFLICT ("workspace_id", "provider") DO UPDATE
       SET "api_key_sealed" = EXCLUDED."api_key_sealed", "hint" = EXCLUDED."hint", "base_url" = EXCLUDED."base_url",
           "updated_at" = clock_timestamp()
    RETURNING c.*, (xmax = 0) AS inserted`),
});

/** Every query of workspace provider credentials; each is scoped to its workspace. */
@Injectable()
export class ProviderCredentialsRepository extends DataRepository {
  constructor(@InjectDataSource() dataSource: DataSource) {
    super(dataSource);
  }

  /** The workspace's credentials, by provider. */
  list(workspaceId: string): Promise<ProviderCredentialEntity[]> {
    return this.table(ProviderCredentialEntity).find({ where: { workspaceId }, order: { provider: 'ASC' } });
  }

  find(workspaceId: string, provider: string): Promise<ProviderCredentialEntity | null> {
    return this.table(ProviderCredentialEntity).findOneBy({ workspaceId, provider });
  }

  /** Stores the credential, replacing the provider's one; `replaced` when there was one. */
  async save(write: ProviderCredentialWrite): Promise<{ credential: ProviderCredentialEntity; replaced: boolean }> {
    const row = await this.row(SQL.upsert, [write.workspaceId, write.provider, write.apiKeySealed, write.hint, write.baseUrl]);
    if (!row) throw new Error('the upsert of a provider credential returned no row');
    const credential = Object.assign(new ProviderCredentialEntity(), {
      workspaceId: row.workspace_id,
      provider: row.provider,
      apiKeySealed: row.api_key_sealed,
      hint: row.hint,
      baseUrl: row.base_url,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    });
    return { credential, replaced: !row.inserted };
  }

  /** Removes the workspace's credential for the provider; false when there was none. */
  async remove(workspaceId: string, provider: string): Promise<boolean> {
    const result = await this.table(ProviderCredentialEntity).delete({ workspaceId, provider });
    return (result.affected ?? 0) > 0;
  }
}
