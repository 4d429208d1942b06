import { Module } from '@nestjs/common';
import { ApiMeter } from '../meter/api-meter';
import { ApiMeterGuard, RunAdmissionGuard } from '../meter/api-meter.guard';
import { Clock } from '../meter/clock';
import { ApiKeyAuthenticator } from './api-key-authenticator';
import { ApiKeyGuard } from './api-key.guard';

/**
 * What `@MeteredApiRoute()` and `@PrivateApiRoute()` need: the API-key check (cached catalog
 * lookups) and the daily public meter. Every feature module with such routes imports it.
 */
@Module({
  providers: [Clock, ApiKeyAuthenticator, ApiKeyGuard, ApiMeter, ApiMeterGuard, RunAdmissionGuard],
  exports: [Clock, ApiKeyAuthenticator, ApiKeyGuard, ApiMeter, ApiMeterGuard, RunAdmissionGuard],
})
export class AuthModule {}
