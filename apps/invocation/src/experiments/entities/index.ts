import { ExperimentCellEntity } from './experiment-cell.entity';
import { ExperimentRunEntity } from './experiment-run.entity';

export const EXPERIMENT_ENTITIES = [ExperimentRunEntity, ExperimentCellEntity];
