import { applyDecorators, UseGuards } from '@nestjs/common';
import { IdempotencyGuard } from '../idempotency/idempotency.guard';
import { ApiMeterGuard, RunAdmissionGuard } from '../meter/api-meter.guard';
import { ApiKeyGuard } from './api-key.guard';

/** A public or stream route: API key required, counted on the daily meter and the key's requests per minute. */
export const MeteredApiRoute = () => applyDecorators(UseGuards(ApiKeyGuard, ApiMeterGuard));

/**
 * A public route that starts a run: as MeteredApiRoute, and an `Idempotency-Key` is honoured (a
 * repeat is not metered); admitted by usage governance (the end user's limits, tokens per
 * minute, budgets, credits) in the same Redis round trip.
 */
export const RunStartingApiRoute = () => applyDecorators(UseGuards(ApiKeyGuard, IdempotencyGuard, RunAdmissionGuard));

/** A first-party `/v1/private/*` route: API key required, not metered. */
export const PrivateApiRoute = () => applyDecorators(UseGuards(ApiKeyGuard));
