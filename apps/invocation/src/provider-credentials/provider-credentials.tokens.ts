/** The URL policy of base URLs a workspace gives with its keys (PROVIDER_URL_ALLOWLIST). */
export const PROVIDER_URL_POLICY = Symbol('waggle:provider-url-policy');
