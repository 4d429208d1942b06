export {
  digestWebhookSecret,
  generateWebhookSecret,
  matchesWebhookSecret,
  parseWebhookSecretKeyring,
  SecretSealer,
  standardWebhooksKey,
} from './secrets';
export { SIGNATURE_HEADERS, signCallback, type CallbackSignatureInput } from './signatures';
export {
  acceptsSecret,
  secretsInForce,
  WebhookRegistry,
  type RegisteredPromptVariant,
  type RegisteredSecret,
  type WebhookTarget,
} from './registry';
export { deliveryIdFor } from './delivery-id';
export {
  CallbackRefusedError,
  CallbackUrlPolicy,
  describeRangeMessage,
  nonPublicRange,
  type HostWord,
  type UrlPolicyWording,
  type UrlWord,
} from './callback-url-policy';
export { checkResolvedAddresses, createGuardedDispatcher, refusalOf, type GuardedDispatcherOptions } from './guarded-dispatcher';
export { WebhookTargetKeeper, type WebhookTargetKeeperOptions, type WebhookTargetSource } from './target-keeper';
export {
  newOwnerSecrets,
  ownerAcceptsSecret,
  previousSecretExpiry,
  registeredSecrets,
  rotateOwnerSecrets,
  type SealedOwnerSecrets,
} from './owner-secrets';
export {
  OwnerWebhookSecrets,
  type OwnerWebhookSecretsOptions,
  type WebhookSecretColumns,
  type WebhookSecretOwnerStore,
} from './owner-webhook-secrets';
export { webhookOwnerProviders, type WebhookOwnerEnv } from './webhook-owner.providers';
