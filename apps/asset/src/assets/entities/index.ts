import { AssetEntity } from './asset.entity';

export const ASSET_ENTITIES = [AssetEntity];
