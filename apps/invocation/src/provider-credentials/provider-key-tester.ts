import { PROVIDER_KEY_TEST_TIMEOUT_MS } from '@waggle/contracts';
import { errorMessage, nestedMessage, WaggleException, type NestedMessage } from '@waggle/errors';
import { invalidWorkspaceCredentials, type ProviderApi } from '@waggle/providers';
import { refusalOf } from '@waggle/webhooks';
import { request, type Dispatcher } from 'undici';

/** Where each API lists its models when no base URL is known: the SDKs' own defaults. */
const DEFAULT_API_BASES: Readonly<Record<'openai' | 'anthropic' | 'google', string>> = {
  openai: 'https://api.openai.com/v1',
  anthropic: 'https://api.anthropic.com/v1',
  google: 'https://generativelanguage.googleapis.com/v1beta',
};

/** What to test: the provider, the API it speaks, the key, and where (the base URL the runs will use). */
export interface KeyUnderTest {
  provider: string;
  providerName: string;
  api: Exclude<ProviderApi, 'local'>;
  apiKey: string;
  /** Undefined: the SDK's default for the API. */
  baseUrl: string | undefined;
  /** The base URL is the workspace's own: its connection goes through the SSRF guard. */
  workspaceUrl: boolean;
}

/** The list-models request of an API: the cheapest call that proves a key. */
function listModelsRequest(key: KeyUnderTest): { url: string; headers: Record<string, string> } | null {
  const base = (key.baseUrl ?? (key.api === 'openai-compatible' ? undefined : DEFAULT_API_BASES[key.api]))?.replace(/\/+$/, '');
  if (base === undefined) return null;
  switch (key.api) {
    case 'anthropic':
      return { url: `${base}/models`, headers: { 'x-api-key': key.apiKey, 'anthropic-version': '2023-06-01' } };
    case 'google':
      return { url: `${base}/models`, headers: { 'x-goog-api-key': key.apiKey } };
    default:
      return { url: `${base}/models`, headers: { authorization: `Bearer ${key.apiKey}` } };
  }
}

/**
 * Tests a workspace's key before it is stored (the spec's decisions on usage governance): one
 * list-models call to the provider, with a short time-out, through the SSRF guard when the base
 * URL is the workspace's. A refused key (401, 403) is 422 personal_model_invalid_credentials; a
 * provider that cannot be reached, times out or fails (any other status) is 502 provider_error,
 * and nothing is stored. The key goes in the request's headers only, never in an error.
 */
export class ProviderKeyTester {
  constructor(
    private readonly guarded: Dispatcher,
    private readonly timeoutMs = PROVIDER_KEY_TEST_TIMEOUT_MS,
  ) {}

  async test(key: KeyUnderTest): Promise<void> {
    const call = listModelsRequest(key);
    if (!call) {
      throw new WaggleException('validation_error', {
        detail: 'provider_no_base_url',
        params: { provider: key.providerName },
        details: [
          { field: 'base_url', messages: [errorMessage({ detail: 'provider_no_base_url', params: { provider: key.providerName } }, 'en')] },
        ],
      });
    }
    let status: number;
    try {
      const answer = await request(call.url, {
        method: 'GET',
        headers: { ...call.headers, accept: 'application/json' },
        signal: AbortSignal.timeout(this.timeoutMs),
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
        ...(key.workspaceUrl && { dispatcher: this.guarded }),
      });
      status = answer.statusCode;
      await answer.body.dump();
    } catch (error) {
      const refusal = refusalOf(error);
      if (refusal) {
        throw new WaggleException('validation_error', {
          detail: 'url_refused',
          params: { reason: refusal.refusal },
          details: [{ field: 'base_url', messages: [errorMessage(refusal.refusal, 'en')] }],
        });
      }
      const timedOut =
        (error as { name?: string }).name === 'TimeoutError' || (error as { code?: string }).code === 'UND_ERR_HEADERS_TIMEOUT';
      throw this.failed(
        key,
        timedOut
          ? nestedMessage({ detail: 'provider_reason_timed_out', params: { seconds: this.timeoutMs / 1000 } })
          : { detail: 'provider_reason_connect' },
      );
    }
    if (status >= 200 && status < 300) return;
    if (status === 401 || status === 403) throw invalidWorkspaceCredentials(key.provider, key.providerName, status);
    throw this.failed(
      key,
      nestedMessage({ detail: status >= 500 ? 'provider_reason_unavailable' : 'provider_reason_rejected', params: { status } }),
      status,
    );
  }

  private failed(key: KeyUnderTest, reason: NestedMessage, status?: number): WaggleException {
    return new WaggleException('provider_error', {
      detail: 'provider_credential_test_failed',
      params: { provider: key.providerName, reason },
      details: { provider: key.provider, ...(status !== undefined && { status }) },
    });
  }
}
