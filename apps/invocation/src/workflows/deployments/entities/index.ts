import { WorkflowDeploymentEntity } from './workflow-deployment.entity';
import { WorkflowVariantEntity } from './workflow-variant.entity';
import { WorkflowVersionEntity } from './workflow-version.entity';

/** The tables of workflow deployments, for the invocation data source and the feature module. */
export const WORKFLOW_DEPLOYMENT_ENTITIES = [WorkflowDeploymentEntity, WorkflowVariantEntity, WorkflowVersionEntity];
