import { describeEnv } from '@waggle/platform';
import { PROVIDER_KEYS, providerEnvVariables } from '@waggle/providers';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { InvocationEnv } from '../config/invocation.env';

describe('provider configuration of the invocation service', () => {
  it('declares, with a description, every variable the provider layer takes', () => {
    const declared = new Map(describeEnv(InvocationEnv).map((variable) => [variable.name, variable]));
    for (const name of providerEnvVariables()) {
      expect({ name, description: declared.get(name)?.description ?? '' }).toEqual({ name, description: expect.stringMatching(/\S/) });
      if (name.endsWith('_API_KEY')) expect(declared.get(name)?.secret).toBe(true);
    }
  });

  it('knows every serving provider the shipped model catalog names', () => {
    const catalog = parse(readFileSync(join(__dirname, '../../../catalog/src/models/data/models.yaml'), 'utf8')) as { providers: Record<string, unknown> };
    expect(PROVIDER_KEYS).toEqual(expect.arrayContaining(Object.keys(catalog.providers)));
  });
});
