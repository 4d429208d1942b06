import type { PipeTransform } from '@nestjs/common';
import { WorkflowInvokeInputs } from '@waggle/contracts';
import { CompiledValidationPipe, createValidationPipe } from '@waggle/platform';
import { AgentInvokeBody } from './agents/agent-invoke.dto';
import { PromptInvokeBody } from './prompts/prompt-invoke.dto';
import { AgentWebhookBody } from './webhooks/agent-webhook.dto';
import { PromptWebhookBody } from './webhooks/prompt-webhook.dto';

/**
 * The bodies of the invoke and trigger routes (prompt, agent and workflow invoke; the prompt
 * and agent webhooks), validated by validators compiled once from their contract classes.
 */
export const COMPILED_BODY_CLASSES: Array<new () => object> = [
  PromptInvokeBody,
  AgentInvokeBody,
  WorkflowInvokeInputs,
  PromptWebhookBody,
  AgentWebhookBody,
];

/**
 * The gateway's validation: the compiled validators for the hot routes' bodies, class-validator
 * (`createValidationPipe`) for everything else and for every body the compiled form does not
 * accept, so refusals keep class-validator's answers.
 */
export function createEdgeValidationPipe(): PipeTransform {
  return new CompiledValidationPipe(createValidationPipe(), COMPILED_BODY_CLASSES);
}
