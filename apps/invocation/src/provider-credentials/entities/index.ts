import { ProviderCredentialEntity } from './provider-credential.entity';

export const PROVIDER_CREDENTIAL_ENTITIES = [ProviderCredentialEntity];
