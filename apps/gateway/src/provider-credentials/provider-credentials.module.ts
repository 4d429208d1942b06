import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { ProviderCredentialsController } from './provider-credentials.controller';

/** The workspace's own provider keys (private, documented), owned by the invocation service. */
@Module({ imports: [AuthModule], controllers: [ProviderCredentialsController] })
export class ProviderCredentialsModule {}
