import type { ModelRoute, PromptCacheOptions, PromptMessage } from './types';

/**
 * The messages with Anthropic cache breakpoints on the last system message and the last
 * message of the conversation: everything up to each is cached, so the next turn of the
 * same conversation (an agent's next step, the next chat message) reads the prefix from the
 * cache. Two breakpoints of Anthropic's four. Other providers cache prefixes on their own,
 * so their messages are returned as they are; the caller's array is never changed.
 */
export function withPromptCache(route: ModelRoute, messages: PromptMessage[], cache: PromptCacheOptions | undefined): PromptMessage[] {
  if (!cache || route.providerApi !== 'anthropic' || messages.length === 0) return messages;
  const cacheControl = { type: 'ephemeral', ...(cache.ttl && { ttl: cache.ttl }) };
  const lastSystem = messages.findLastIndex((message) => message.role === 'system');
  const lastOther = messages.findLastIndex((message) => message.role !== 'system');
  return messages.map((message, index) =>
    index === lastSystem || index === lastOther
      ? ({
          ...message,
          providerOptions: { ...message.providerOptions, anthropic: { ...message.providerOptions?.anthropic, cacheControl } },
        } as PromptMessage)
      : message,
  );
}
