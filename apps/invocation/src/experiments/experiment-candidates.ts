import { Injectable } from '@nestjs/common';
import type { DatasetRowView, ExperimentCandidateSpec } from '@waggle/contracts';
import { WaggleException } from '@waggle/errors';
import { randomUUID } from 'node:crypto';
import { PromptExecution } from '../prompt-runs/prompt-execution';
import { promptVersionOf } from '../prompts/prompt-definition';
import { PromptResolutionCache } from '../prompts/prompt-resolution.cache';
import type { ResolvedPrompt } from '../prompts/prompts.repository';
import { unsavedPrompt } from '../prompts/unsaved-prompt';
import type { InlineVersion, StoredCandidate } from './entities/experiment-run.entity';

/** Why an active candidate cannot run: one entry of `experiment_run_unsupported_candidates`'s details. */
export interface CandidateProblem {
  candidate: string;
  /** The catalog code the candidate's runs would fail with. */
  code: string;
  message: string;
}

/** A candidate as the run keeps it, and the prompt its cells run. */
interface Resolved {
  candidate: StoredCandidate;
  prompt: ResolvedPrompt;
}

/** The deployment name an inline candidate's cells are recorded under: no deployment of a workspace can be named so. */
export const INLINE_DEPLOYMENT = '(inline)';

/**
 * Resolves a run's candidates when it is created: each saved one to the exact version its cells
 * run (pinned by id, so a promotion meanwhile changes nothing), each inline one to the version
 * its definition makes (as an apply makes it, never stored). An active candidate is then checked
 * as its runs would be (the model in the catalog and not deprecated, with its fallbacks and
 * credentials: PromptExecution.prepare), and against the dataset: every template variable must be
 * given by at least one row. Every problem of every candidate is answered, not only the first.
 */
@Injectable()
export class ExperimentCandidates {
  constructor(
    private readonly resolutions: PromptResolutionCache,
    private readonly execution: PromptExecution,
  ) {}

  async resolve(
    workspaceId: string,
    specs: readonly ExperimentCandidateSpec[],
    rows: readonly DatasetRowView[],
  ): Promise<{ candidates: StoredCandidate[]; problems: CandidateProblem[] }> {
    const given = new Set(rows.flatMap((row) => Object.keys(row.inputs).filter((name) => row.inputs[name] !== undefined)));
    const candidates: StoredCandidate[] = [];
    const problems: CandidateProblem[] = [];
    for (const spec of specs) {
      const active = spec.active ?? true;
      try {
        const { candidate, prompt } = spec.inline ? this.inline(workspaceId, spec, active) : await this.saved(workspaceId, spec, active);
        candidates.push(candidate);
        if (!active) continue;
        // The refusals a run of it would meet before its model is called (the inputs are each row's, checked below).
        await this.execution.prepare({ workspaceId, deployment: prompt.deployment.name, variant: prompt.variant.name, inputs: {} }, prompt);
        const missing = prompt.version.variables.filter((name) => !given.has(name));
        if (missing.length > 0)
          problems.push({
            candidate: spec.name,
            code: 'validation_error',
            message: `No row of the dataset version gives the template variable(s): ${missing.join(', ')}`,
          });
      } catch (error) {
        if (!(error instanceof WaggleException)) throw error;
        // An inactive candidate is kept as named, even when it could not run.
        if (!active) candidates.push(unresolved(spec));
        else problems.push({ candidate: spec.name, code: error.code, message: error.message });
      }
    }
    return { candidates, problems };
  }

  private inline(workspaceId: string, spec: ExperimentCandidateSpec, active: boolean): Resolved {
    const inline = spec.inline as NonNullable<ExperimentCandidateSpec['inline']>;
    const version: InlineVersion = promptVersionOf({ ...inline, name: spec.name });
    const candidate: StoredCandidate = {
      name: spec.name,
      active,
      inline: true,
      deployment: null,
      variant: null,
      label: null,
      version: null,
      version_id: null,
      model: version.model,
      deployment_id: null,
      variant_id: null,
      inline_id: randomUUID(),
      inline_version: version,
    };
    return { candidate, prompt: inlinePrompt(workspaceId, candidate.inline_id as string, spec.name, version) };
  }

  private async saved(workspaceId: string, spec: ExperimentCandidateSpec, active: boolean): Promise<Resolved> {
    const deployment = spec.deployment as string;
    const variant = spec.variant as string;
    const selector = {
      ...(spec.version !== undefined && { version: spec.version }),
      ...(spec.label !== undefined && { label: spec.label }),
    };
    const resolved = await this.resolutions.resolveAt(workspaceId, deployment, variant, selector);
    const candidate: StoredCandidate = {
      name: spec.name,
      active,
      inline: false,
      deployment: resolved.deployment.name,
      variant: resolved.variant.name,
      label: spec.label ?? null,
      version: resolved.version.version,
      version_id: resolved.version.id,
      model: resolved.version.model,
      deployment_id: resolved.deployment.id,
      variant_id: resolved.variant.id,
      inline_id: null,
      inline_version: null,
    };
    return { candidate, prompt: resolved };
  }
}

/** An inline candidate as its cells run it: recorded under the deployment `(inline)`, the candidate as the variant, version 0. */
export function inlinePrompt(workspaceId: string, id: string, name: string, version: InlineVersion): ResolvedPrompt {
  return unsavedPrompt(workspaceId, id, { deployment: INLINE_DEPLOYMENT, variant: name }, version);
}

function unresolved(spec: ExperimentCandidateSpec): StoredCandidate {
  return {
    name: spec.name,
    active: false,
    inline: spec.inline !== undefined,
    deployment: spec.deployment ?? null,
    variant: spec.variant ?? null,
    label: spec.label ?? null,
    version: spec.version ?? null,
    version_id: null,
    model: spec.inline?.model ?? '',
    deployment_id: null,
    variant_id: null,
    inline_id: null,
    inline_version: null,
  };
}
