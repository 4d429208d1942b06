import { Controller } from '@nestjs/common';
import {
  AssetIdRequest,
  AssetPageRequest,
  AssetPatterns,
  StoreAssetRequest,
  WorkspaceIdRequest,
  type AssetRecord,
  type StagedAsset,
} from '@waggle/contracts';
import { RpcHandler } from '@waggle/platform';
import { from, type Observable } from 'rxjs';
import { AssetsService } from './assets.service';

@Controller()
export class AssetsController {
  constructor(private readonly assets: AssetsService) {}

  @RpcHandler(AssetPatterns.listAssets)
  list(request: WorkspaceIdRequest): Promise<AssetRecord[]> {
    return this.assets.list(request.workspace_id);
  }

  @RpcHandler(AssetPatterns.pageAssets)
  page(request: AssetPageRequest): Observable<AssetRecord[]> {
    return from(this.assets.page(request));
  }

  @RpcHandler(AssetPatterns.storeAsset)
  store(request: StoreAssetRequest): Promise<AssetRecord> {
    return this.assets.store(request);
  }

  @RpcHandler(AssetPatterns.getAsset)
  get(request: AssetIdRequest): Promise<AssetRecord> {
    return this.assets.get(request.workspace_id, request.asset_id);
  }

  @RpcHandler(AssetPatterns.stageAsset)
  stage(request: AssetIdRequest): Promise<StagedAsset> {
    return this.assets.stage(request.workspace_id, request.asset_id);
  }
}
