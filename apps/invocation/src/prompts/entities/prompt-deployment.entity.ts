import { Entity, Index } from 'typeorm';
import { WebhookOwnerColumns } from '@waggle/database';

/** A prompt deployment of a workspace; its id is the webhook route's prompt_endpoint_id. */
@Entity({ name: 'prompt_deployments' })
@Index('UQ_prompt_deployments_workspace_name', ['workspaceId', 'name'], { unique: true })
export class PromptDeploymentEntity extends WebhookOwnerColumns {}
