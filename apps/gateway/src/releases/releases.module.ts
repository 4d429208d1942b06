import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { ReleasesController } from './releases.controller';

/** Release pointers of prompt variants (private, documented), owned by the invocation service. */
@Module({ imports: [AuthModule], controllers: [ReleasesController] })
export class ReleasesModule {}
