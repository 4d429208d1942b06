import { DatasetRowEntity } from './dataset-row.entity';
import { DatasetVersionEntity } from './dataset-version.entity';
import { DatasetEntity } from './dataset.entity';

export const DATASET_ENTITIES = [DatasetEntity, DatasetVersionEntity, DatasetRowEntity];
