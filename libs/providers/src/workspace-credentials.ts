import type { CredentialSource } from '@waggle/contracts';
import { WaggleException } from '@waggle/errors';
import { inspect } from 'node:util';
import type { ModelRoute } from './types';

/**
 * A workspace's own key for one provider, as a run calls the provider with it (the spec's
 * decisions on usage governance, workspace provider keys). The key is a private field: the
 * object serialises (JSON, a logger) and prints (util.inspect) without it, so a route that
 * carries one can be logged or put in an error's details by mistake and still not leak it.
 */
export class WorkspaceCredential {
  readonly #apiKey: string;

  /**
   * @param version  what changes when the key is replaced (its `updated_at`): the provider
   *                 layer builds a new client for a new version, so a replaced key is used at once.
   * @param baseUrl  the workspace's base URL for the provider; null: the operator's (or the SDK's) one.
   */
  constructor(
    readonly workspaceId: string,
    readonly provider: string,
    apiKey: string,
    readonly baseUrl: string | null,
    readonly version: string,
  ) {
    this.#apiKey = apiKey;
  }

  get apiKey(): string {
    return this.#apiKey;
  }

  toJSON(): Record<string, string> {
    return { provider: this.provider, version: this.version };
  }

  [inspect.custom](): string {
    return `WorkspaceCredential(${this.provider}, ${this.version})`;
  }
}

/** The workspace's stored credential for a provider, or null when it has none. */
export type WorkspaceCredentialLookup = (workspaceId: string, provider: string) => Promise<WorkspaceCredential | null>;

/** Whose keys a run's model calls use (its prompt variant's, agent's or step's `credentials`) and what its admission said. */
export interface RunCredentials {
  source: CredentialSource;
  workspaceId: string;
  /** The gateway's admission found the workspace's hosted credits used up (the request context's `creditsExhausted`). */
  creditsExhausted?: boolean;
  /** How the workspace's stored credentials are read; needed for `source: 'workspace'`. */
  lookup?: WorkspaceCredentialLookup;
}

/** Whose credentials a call on this route uses: the one place that decides what a model call reports. */
export function credentialSourceOf(route: ModelRoute): CredentialSource {
  return route.workspaceCredential ? 'workspace' : 'hosted';
}

/**
 * The route a run calls, with the credentials it asked for, refused before any provider call:
 * the workspace's own key for the route's provider (none stored → 422
 * personal_model_missing_credentials), or the operator's, which a workspace whose hosted credits
 * are used up may not draw on (402 insufficient_hosted_llm_credits). Without `run` (callers that
 * are not runs, e.g. embeddings) the route is the operator's, unchecked.
 */
export async function withRunCredentials(route: ModelRoute, run: RunCredentials | undefined): Promise<ModelRoute> {
  if (!run) return route;
  if (run.source === 'hosted') {
    if (run.creditsExhausted) throw new WaggleException('insufficient_hosted_llm_credits');
    return route;
  }
  const credential = run.lookup ? await run.lookup(run.workspaceId, route.provider) : null;
  if (!credential) {
    throw new WaggleException('personal_model_missing_credentials', {
      detail: 'personal_model_no_credentials_for',
      params: { provider: route.providerName },
      details: { provider: route.provider },
    });
  }
  return { ...route, workspaceCredential: credential };
}

/** 422 personal_model_invalid_credentials: the provider refused the workspace's key (at a run, or when it was saved). */
export function invalidWorkspaceCredentials(provider: string, providerName: string, status?: number): WaggleException {
  return new WaggleException('personal_model_invalid_credentials', {
    detail: 'personal_model_refused_by',
    params: { provider: providerName },
    details: { provider, ...(status !== undefined && { status }) },
  });
}

/** How long a replica keeps a workspace's credential read (ms): a key replaced on another replica is used within it. */
export const WORKSPACE_CREDENTIAL_CACHE_MS = 5_000;
/** How many (workspace, provider) credentials a replica keeps read at most. */
export const WORKSPACE_CREDENTIAL_CACHE_ENTRIES = 1_000;

/**
 * A short, bounded cache in front of a credential lookup (a table read in the invocation
 * service, an RPC to it from the agent service): every run with `credentials: workspace` needs
 * one. Entries live `ttlMs`; the oldest read goes first past `maxEntries`; `forget` drops one at
 * once (the replica that stored or deleted the key). A failed lookup, or one that found no key,
 * is not cached.
 */
export class WorkspaceCredentialCache {
  private readonly entries = new Map<string, { credential: Promise<WorkspaceCredential | null>; expiresAt: number }>();

  constructor(
    private readonly load: WorkspaceCredentialLookup,
    private readonly options: { ttlMs?: number; maxEntries?: number; now?: () => number } = {},
  ) {}

  readonly lookup: WorkspaceCredentialLookup = (workspaceId, provider) => {
    const now = (this.options.now ?? Date.now)();
    const key = `${workspaceId}\u0000${provider}`;
    const cached = this.entries.get(key);
    if (cached && cached.expiresAt > now) return cached.credential;
    this.entries.delete(key);
    const credential = this.load(workspaceId, provider);
    this.entries.set(key, { credential, expiresAt: now + (this.options.ttlMs ?? WORKSPACE_CREDENTIAL_CACHE_MS) });
    // Neither a failed lookup nor "none stored" is kept: a key stored on another replica is used
    // by the next run here, and a missing key only ever answers a refusal, which needs no cache.
    const drop = () => {
      if (this.entries.get(key)?.credential === credential) this.entries.delete(key);
    };
    credential.then((found) => found === null && drop(), drop);
    const max = this.options.maxEntries ?? WORKSPACE_CREDENTIAL_CACHE_ENTRIES;
    while (this.entries.size > max) this.entries.delete(this.entries.keys().next().value as string);
    return credential;
  };

  forget(workspaceId: string, provider: string): void {
    this.entries.delete(`${workspaceId}\u0000${provider}`);
  }

  get size(): number {
    return this.entries.size;
  }
}
