import type { NatsRpcClient } from '@waggle/platform';
import { PromptResolutionCache } from './prompt-resolution.cache';
import type { PromptsRepository, ResolvedVariant } from './prompts.repository';

/** Only the repository's reads are replaced (pure caching logic): counts how often the cache asks. */
function cacheOver(variant: Partial<ResolvedVariant['variant']>) {
  const version = (number: number) => ({ id: `version-${number}`, variantId: 'variant-1', version: number });
  const resolved = {
    deployment: { id: 'deployment-1', name: 'helper', workspaceId: 'ws' },
    variant: { id: 'variant-1', name: 'default', labels: { staging: 2 }, split: null, ...variant },
    version: version(1),
    latestVersion: 3,
  } as unknown as ResolvedVariant;
  const reads = { resolve: 0, versionNumbered: 0 };
  const repository = {
    resolve: () => {
      reads.resolve += 1;
      return Promise.resolve(resolved);
    },
    versionNumbered: (_variantId: string, number: number) => {
      reads.versionNumbered += 1;
      return Promise.resolve(number <= 3 ? version(number) : null);
    },
  } as unknown as PromptsRepository;
  const rpc = { publish: () => undefined } as unknown as NatsRpcClient;
  return { cache: new PromptResolutionCache(repository, rpc), reads };
}

describe('PromptResolutionCache.resolveAt', () => {
  it('serves labels, latest and pinned versions from memory once each version was read', async () => {
    const { cache, reads } = cacheOver({});
    for (let i = 0; i < 3; i++) {
      expect((await cache.resolveAt('ws', 'helper', 'default', { label: 'staging' })).version.version).toBe(2);
      expect((await cache.resolveAt('ws', 'helper', 'default', { label: 'latest' })).version.version).toBe(3);
      expect((await cache.resolveAt('ws', 'helper', 'default', { version: 1 })).version.version).toBe(1);
    }
    expect(reads).toEqual({ resolve: 1, versionNumbered: 2 });
  });

  it('names the label or version it cannot find, and refuses both at once', async () => {
    const { cache } = cacheOver({});
    await expect(cache.resolveAt('ws', 'helper', 'default', { label: 'constructor' })).rejects.toMatchObject({
      code: 'resource_not_found',
      detail: 'release_label_not_found',
    });
    await expect(cache.resolveAt('ws', 'helper', 'default', { version: 9 })).rejects.toMatchObject({ detail: 'variant_version_not_found' });
    await expect(cache.resolveAt('ws', 'helper', 'default', { version: 1, label: 'staging' })).rejects.toMatchObject({
      code: 'validation_error',
      status: 400,
    });
  });

  it('assigns a split variant by its split id and the key, the same every time, and serves the deployed version when unassigned', async () => {
    const split = {
      id: 'split-1',
      targets: [
        { version: 1, weight: 50 },
        { version: 2, weight: 50 },
      ],
    };
    const { cache } = cacheOver({ split });
    const served = new Map<string, number>();
    for (let user = 0; user < 40; user++) {
      const first = await cache.resolveAt('ws', 'helper', 'default', {}, { key: `u${user}`, sticky: true });
      const again = await cache.resolveAt('ws', 'helper', 'default', {}, { key: `u${user}`, sticky: true });
      expect(again.version.version).toBe(first.version.version);
      expect(first.split).toMatchObject({ id: 'split-1', variant: 'default', sticky: true });
      served.set(`u${user}`, first.version.version);
    }
    expect(new Set(served.values())).toEqual(new Set([1, 2]));
    expect((await cache.resolveAt('ws', 'helper', 'default')).split).toBeNull();
  });
});
