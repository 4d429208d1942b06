import type { ShownWebhookSecret, WebhookOwnerKind } from '@waggle/contracts';
import {
  newOwnerSecrets,
  ownerAcceptsSecret,
  previousSecretExpiry,
  registeredSecrets,
  rotateOwnerSecrets,
  type SealedOwnerSecrets,
} from './owner-secrets';
import type { WebhookTarget } from './registry';
import type { SecretSealer } from './secrets';
import type { WebhookTargetKeeper, WebhookTargetSource } from './target-keeper';

/** The columns every webhook owner's row (agent, prompt deployment, workflow deployment) keeps its secrets in. */
export interface WebhookSecretColumns {
  id: string;
  workspaceId: string;
  webhookSecretSealed: string;
  previousWebhookSecretSealed: string | null;
  previousSecretExpiresAt: Date | null;
}

/**
 * One kind of owner's rows, as its repository reads and writes them. Calls made inside
 * `transaction` run in it (the repository's transaction travels with the async context).
 */
export interface WebhookSecretOwnerStore<TOwner extends WebhookSecretColumns> {
  transaction<T>(work: () => Promise<T>): Promise<T>;
  /**
   * The workspace's owner by the reference its API names it by (an id, a deployment name); throws
   * its not-found error. With `lock`, held against concurrent writers until the transaction ends.
   */
  get(workspaceId: string, ref: string, options?: { lock?: boolean }): Promise<TOwner>;
  /** Writes the owner's secret columns inside the transaction. */
  saveSecrets(owner: TOwner): Promise<unknown>;
  /** The live owners among these ids; unknown (and deleted) ones are left out. */
  findByIds(ids: string[]): Promise<TOwner[]>;
  /** One page of every live owner's id, in a stable order. */
  idsPage(skip: number, take: number): Promise<string[]>;
}

export interface OwnerWebhookSecretsOptions<TOwner extends WebhookSecretColumns, TView> {
  kind: WebhookOwnerKind;
  store: WebhookSecretOwnerStore<TOwner>;
  keeper: Pick<WebhookTargetKeeper, 'register' | 'publish' | 'remove'>;
  sealer: SecretSealer;
  /** The overlap of a rotation that names none (WEBHOOK_SECRET_OVERLAP_SECONDS). */
  overlapSeconds: number;
  /** The owner's API view: its ids, then the shown secret. */
  view(owner: TOwner, secret: ShownWebhookSecret): TView;
  /** The field that names the owner in the rotation's log line (`agent_id`, `deployment_id`, ...). */
  logIdField: string;
  logger: { log(message: unknown): void };
}

/**
 * One kind of webhook owner's secrets (decisions: `whsec_` + base64 of 32 random bytes, each
 * owner its own, rotatable with an overlap): sealed in the owner's row, shown, rotated and
 * checked on request, and published as the owner's webhook target, from which the gateway
 * authenticates triggers and the callback-dispatcher signs callbacks without asking the
 * owning service. Each service's owner feature extends it with its repository as the store.
 */
export class OwnerWebhookSecrets<TOwner extends WebhookSecretColumns, TView> implements WebhookTargetSource {
  readonly kind: WebhookOwnerKind;

  constructor(protected readonly options: OwnerWebhookSecretsOptions<TOwner, TView>) {
    this.kind = options.kind;
  }

  /** Nest calls it when the owner's module starts: from then on the keeper writes these owners' targets. */
  onModuleInit(): void {
    this.options.keeper.register(this);
  }

  /** A new owner's secrets, sealed for its row. */
  newSecrets(): SealedOwnerSecrets {
    return newOwnerSecrets(this.options.sealer);
  }

  open(sealed: string): string {
    return this.options.sealer.open(sealed);
  }

  /** Rewrites these owners' registry entries from their rows (after a create, an apply or a rotation). */
  publish(ids: string[]): Promise<number> {
    return this.options.keeper.publish(this.kind, ids);
  }

  /** Takes a deleted owner's entry out of the registry. */
  unpublish(id: string): Promise<void> {
    return this.options.keeper.remove(this.kind, id);
  }

  async view(workspaceId: string, ref: string): Promise<TView> {
    return this.toView(await this.options.store.get(workspaceId, ref));
  }

  /**
   * A new current secret; the old one keeps authenticating triggers and signing callbacks
   * for the overlap (the default overlap when the rotation names none), so callers and
   * receivers can switch without losing a delivery.
   */
  async rotate(workspaceId: string, ref: string, overlapSeconds = this.options.overlapSeconds): Promise<TView> {
    const { sealer, store, logger, logIdField } = this.options;
    // Locked from read to write: two rotations at once keep each other's secret as the previous one.
    const owner = await store.transaction(async () => {
      const found = await store.get(workspaceId, ref, { lock: true });
      const rotated = rotateOwnerSecrets(sealer, sealedSecretsOf(found), overlapSeconds);
      found.webhookSecretSealed = rotated.current;
      found.previousWebhookSecretSealed = rotated.previous;
      found.previousSecretExpiresAt = rotated.previousExpiresAt;
      await store.saveSecrets(found);
      return found;
    });
    await this.publish([owner.id]);
    logger.log({ msg: 'webhook secret rotated', [logIdField]: owner.id, overlap_seconds: overlapSeconds });
    return this.toView(owner);
  }

  /** Whether `presented` is one of the owner's secrets in force, checked in constant time. */
  accepts(owner: TOwner, presented: string): boolean {
    return ownerAcceptsSecret(this.options.sealer, sealedSecretsOf(owner), presented);
  }

  async targets(ids: string[]): Promise<WebhookTarget[]> {
    return this.targetsOf(await this.options.store.findByIds(ids));
  }

  idsPage(skip: number, take: number): Promise<string[]> {
    return this.options.store.idsPage(skip, take);
  }

  /** The owners' registry entries; an owner kind whose triggers need more (prompt variants) adds it here. */
  protected async targetsOf(owners: TOwner[]): Promise<WebhookTarget[]> {
    return owners.map((owner) => this.targetOf(owner));
  }

  protected targetOf(owner: TOwner): WebhookTarget {
    return {
      kind: this.kind,
      id: owner.id,
      workspace_id: owner.workspaceId,
      secrets: registeredSecrets(this.options.sealer, sealedSecretsOf(owner)),
    };
  }

  private toView(owner: TOwner): TView {
    return this.options.view(owner, {
      webhook_secret: this.open(owner.webhookSecretSealed),
      previous_secret_expires_at: previousSecretExpiry(sealedSecretsOf(owner))?.toISOString() ?? null,
    });
  }
}

function sealedSecretsOf(owner: WebhookSecretColumns): SealedOwnerSecrets {
  return {
    current: owner.webhookSecretSealed,
    previous: owner.previousWebhookSecretSealed,
    previousExpiresAt: owner.previousSecretExpiresAt,
  };
}
