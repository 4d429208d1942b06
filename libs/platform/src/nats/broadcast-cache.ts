import type { OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import type { Subscription } from 'nats';
import type { NatsRpcClient } from './nats-rpc.client';

export interface BroadcastCacheOptions {
  /** Where every replica hears of a change (wire format: renaming it is a migration). */
  subject: string;
  /** The field of a change message that names the scope it clears, e.g. `workspace_id`. */
  scopeField: string;
  /** A backstop: a replica that missed a change message (a NATS outage) catches up within it. */
  ttlMs: number;
  /** How many scopes are kept; the least recently read go first. */
  maxScopes: number;
}

/**
 * What runs read from PostgreSQL on every request but rarely changes (a prompt's current
 * version, an agent's settings, a workflow's current version), kept in memory by each
 * replica. Entries are grouped by a scope (a workspace, an agent): a change forgets its
 * scope here at once and, through a NATS message on `subject`, on every other replica, so a
 * run never uses what a change replaced once the message has arrived, milliseconds after
 * the change committed. A load in flight when its scope is forgotten is not kept; neither is
 * a failed load nor one that found nothing (a thing created later is found at once).
 *
 * Subclasses give the domain's read methods (through `read`) and call `changed` after a
 * write commits; Nest's lifecycle hooks subscribe and unsubscribe.
 */
export abstract class BroadcastCache<Value extends object> implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly scopes: LRUCache<string, Map<string, Promise<Value | null>>>;
  private subscription?: Subscription;

  protected constructor(
    protected readonly rpc: NatsRpcClient,
    private readonly options: BroadcastCacheOptions,
  ) {
    this.scopes = new LRUCache({ max: options.maxScopes, ttl: options.ttlMs });
  }

  onApplicationBootstrap(): void {
    this.subscription = this.rpc.subscribe<Record<string, unknown>>(this.options.subject, (message) => {
      const scope = message[this.options.scopeField];
      if (typeof scope === 'string') this.forget(scope);
    });
    // Without the subscription, changes on other replicas would go unheard for a whole ttl.
    if (!this.subscription) throw new Error(`NATS is not connected: ${this.options.subject} cannot be heard`);
  }

  onApplicationShutdown(): void {
    this.subscription?.unsubscribe();
  }

  /** After a change commits: forgotten here at once, on every other replica through NATS. */
  changed(scope: string): void {
    this.forget(scope);
    this.rpc.publish(this.options.subject, { [this.options.scopeField]: scope });
  }

  /** Forgets every entry of the scope on this replica only. */
  forget(scope: string): void {
    this.scopes.delete(scope);
  }

  /**
   * The entry of `key` in `scope`, loaded once (concurrent readers share the load). A key is
   * always read with the same `load`, so what is cached under it is what `load` answers.
   */
  protected read<Found extends Value | null>(scope: string, key: string, load: () => Promise<Found>): Promise<Found> {
    let entries = this.scopes.get(scope);
    const cached = entries?.get(key);
    if (cached) return cached as Promise<Found>;
    if (!entries) {
      entries = new Map();
      this.scopes.set(scope, entries);
    }
    const held = entries;
    const loaded = load();
    held.set(key, loaded);
    const drop = () => {
      if (held.get(key) === loaded) held.delete(key);
    };
    loaded.then((value) => value === null && drop(), drop);
    return loaded;
  }
}
