/** Who owns a webhook secret (decisions: each prompt deployment, agent and workflow deployment has its own). */
export const WEBHOOK_OWNER_KINDS = ['prompt_deployment', 'agent', 'workflow_deployment'] as const;
export type WebhookOwnerKind = (typeof WEBHOOK_OWNER_KINDS)[number];
