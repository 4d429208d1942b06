// Step runs first: it and the run entity import each other, and the step's `run` column needs the
// run class defined when its decorator metadata is read (loading the run entity first would not).
import { WorkflowStepRunEntity } from './workflow-step-run.entity';
import { WorkflowRunEntity } from './workflow-run.entity';
import { WorkflowSlotsEntity } from './workflow-slots.entity';

export const WORKFLOW_RUN_ENTITIES = [WorkflowRunEntity, WorkflowStepRunEntity, WorkflowSlotsEntity];
