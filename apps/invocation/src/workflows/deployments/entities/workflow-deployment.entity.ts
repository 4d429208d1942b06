import { Entity, Index } from 'typeorm';
import { WebhookOwnerColumns } from '@waggle/database';

/**
 * A workflow deployment of a workspace: what `POST /v1/workflow/invoke` names in
 * `deployment`, and the owner of the webhook secret that signs its runs' callbacks.
 */
@Entity({ name: 'workflow_deployments' })
@Index('UQ_workflow_deployments_workspace_name', ['workspaceId', 'name'], { unique: true })
export class WorkflowDeploymentEntity extends WebhookOwnerColumns {}
