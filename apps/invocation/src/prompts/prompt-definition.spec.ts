import type { PromptVariantSpec } from '@waggle/contracts';
import { contentHashOf } from '@waggle/platform';
import { definitionOf } from './prompt-definition';

const VARIANT = {
  name: 'default',
  model: 'gpt-6-luna',
  messages: [
    { role: 'system', content: 'You answer for {{ company }}.' },
    { role: 'user', content: '{{ question }}' },
  ],
  params: { temperature: 0.2, max_tokens: 512 },
  image_inputs: ['photo'],
} as PromptVariantSpec;

/** The hash of VARIANT before fallbacks and response_format existed: stored versions carry it. */
const HASH_BEFORE = '26bdbaa89462513113c0c5b8ce8e3aed8ff938f24f7133a40396013c4af1909b';

const hashOf = (variant: PromptVariantSpec) => contentHashOf(definitionOf(variant), 'locale');

describe("a prompt variant's content hash", () => {
  it('is what it was for a variant that sets neither fallbacks nor response_format, so re-applying it changes nothing', () => {
    expect(hashOf(VARIANT)).toBe(HASH_BEFORE);
    expect(hashOf({ ...VARIANT, fallbacks: [] })).toBe(HASH_BEFORE);
    // Null arrives as "not set" from a JSON body.
    expect(hashOf({ ...VARIANT, fallbacks: null, response_format: null } as unknown as PromptVariantSpec)).toBe(HASH_BEFORE);
  });

  it('changes with the fallbacks, their order, and the response format', () => {
    const withFallbacks = hashOf({ ...VARIANT, fallbacks: ['claude-haiku-5-5', 'gemini-3.8-flash'] });
    const reordered = hashOf({ ...VARIANT, fallbacks: ['gemini-3.8-flash', 'claude-haiku-5-5'] });
    const withFormat = hashOf({ ...VARIANT, response_format: { type: 'json_schema', schema: { type: 'object' } } });
    const strict = hashOf({ ...VARIANT, response_format: { type: 'json_schema', schema: { type: 'object' }, strict: true } });
    expect(new Set([HASH_BEFORE, withFallbacks, reordered, withFormat, strict]).size).toBe(5);
  });
});
