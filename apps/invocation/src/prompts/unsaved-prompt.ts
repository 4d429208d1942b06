import type { VersionDraft } from '../deployments/deployment-applier';
import { PromptDeploymentEntity } from './entities/prompt-deployment.entity';
import { PromptVariantEntity } from './entities/prompt-variant.entity';
import { PromptVersionEntity } from './entities/prompt-version.entity';
import type { ResolvedPrompt } from './prompts.repository';

/**
 * A prompt that is run without being stored (an experiment's inline candidate), as a prompt run
 * takes it: a deployment, variant and version that exist nowhere but here, all with the same id,
 * and version number 0, which no stored version has.
 */
export function unsavedPrompt(
  workspaceId: string,
  id: string,
  names: { deployment: string; variant: string },
  draft: VersionDraft<PromptVersionEntity>,
): ResolvedPrompt {
  const deployment = Object.assign(new PromptDeploymentEntity(), { id, workspaceId, name: names.deployment });
  const version = Object.assign(new PromptVersionEntity(), { ...draft, id, variantId: id, version: 0, createdAt: new Date(0) });
  const variant = Object.assign(new PromptVariantEntity(), {
    id,
    deploymentId: id,
    name: names.variant,
    currentVersionId: id,
    currentVersion: version,
    publish: null,
  });
  return { deployment, variant, version };
}
