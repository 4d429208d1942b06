/** A prompt deployment as `GET /v1/private/prompts` lists it. */
export interface PromptDeploymentSummary {
  deployment: string;
  prompt_endpoint_id: string;
  created_at: string;
  variants: Array<{
    name: string;
    variant_id: string;
    version: number | null;
    model: string | null;
    variables: string[];
    /** The weighted split the variant serves instead of its deployed version; null: none. */
    split: PromptSplit | null;
  }>;
}

/** One target of a split: another variant's deployed version, a version of one, or (no variant) a version of the variant itself. */
export interface SplitTarget {
  variant?: string;
  version?: number;
  weight: number;
}

/** A prompt variant's split: its id (a new one whenever its targets or weights change) and its targets in the file's order. */
export interface PromptSplit {
  id: string;
  targets: SplitTarget[];
}

/** What a split target serves, in words: `terse (deployed)`, `terse v3`, or `v2 of this variant`. */
export function splitTargetText(target: SplitTarget): string {
  if (target.variant === undefined) return target.version === undefined ? 'this variant (deployed)' : `v${target.version} of this variant`;
  return target.version === undefined ? `${target.variant} (deployed)` : `${target.variant} v${target.version}`;
}

/** A split on one line: each target with its weight, in the file's order. */
export function splitText(split: PromptSplit): string {
  return split.targets.map((target) => `${splitTargetText(target)} ${target.weight}%`).join(', ');
}

/** A workflow deployment as `GET /v1/private/workflows` lists it. */
export interface WorkflowDeploymentSummary {
  deployment: string;
  workflow_deployment_id: string;
  created_at: string;
  variants: Array<{ name: string; variant_id: string; version: number | null; inputs: Record<string, unknown> }>;
}

/** A version of a variant (prompt: model, messages, params…; workflow: `definition`), with where it stands. */
export interface VariantVersion {
  version_id: string;
  version: number;
  created_at: string;
  /** The deployed version. */
  current: boolean;
  /** The labels pointing at it (prompt versions only; `latest` on the newest). */
  labels?: string[];
  model?: string;
  [field: string]: unknown;
}

/** One move of a prompt variant's pointer. */
export interface ReleaseHistoryEntry {
  pointer: string;
  from: number | null;
  to: number | null;
  actor: string;
  reason: string | null;
  experiment_run_id: string | null;
  override: boolean;
  at: string;
}

export interface ReleaseProtection {
  protected: boolean;
  min_pass_rate: number;
  max_age_days: number;
}

import { apiErrorOf, type ApiError } from '../api/api-error';

/** The two kinds of deployment, as their private routes name them. */
export type DeploymentKind = 'prompts' | 'workflows';

export const DEPLOYMENT_KINDS: readonly DeploymentKind[] = ['prompts', 'workflows'];

/** Reads a kind from a URL segment; prompts for anything else. */
export function kindOf(text: string): DeploymentKind {
  return text === 'workflows' ? 'workflows' : 'prompts';
}

export const deploymentsPath = (kind: DeploymentKind) => `/v1/private/${kind}`;

export const versionsPath = (kind: DeploymentKind, deployment: string, variant: string) =>
  `/v1/private/${kind}/${encodeURIComponent(deployment)}/variants/${encodeURIComponent(variant)}/versions`;

/** A prompt variant's release routes (history, labels, promote, rollback, protection). */
export const releasePath = (deployment: string, variant: string, rest: string) =>
  `/v1/private/prompts/${encodeURIComponent(deployment)}/variants/${encodeURIComponent(variant)}/${rest}`;

/** An apply refused: the error the console shows, with the answer's `details` to place on the file's lines. */
export class ApplyRefusal extends Error {
  constructor(
    readonly error: ApiError,
    readonly details: unknown,
  ) {
    super(error.message);
  }
}

/**
 * `POST /v1/private/<kind>/apply` with the file's list. Like apiRequest, except that a refusal keeps
 * the answer's `details` (the fields a 422 names), which the apply screen places on the lines.
 */
export async function applyDefinitions(key: string, kind: DeploymentKind, list: unknown[]): Promise<unknown[]> {
  const response = await fetch(`/v1/private/${kind}/apply`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, accept: 'application/json', 'content-type': 'application/json' },
    body: JSON.stringify({ [kind]: list }),
  });
  const parsed: unknown = await response.json().catch(() => null);
  if (!response.ok) {
    const details = typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>).details : undefined;
    throw new ApplyRefusal(apiErrorOf(response.status, parsed, response.headers), details);
  }
  return ((parsed as Record<string, unknown[]> | null)?.[kind] ?? []) as unknown[];
}
