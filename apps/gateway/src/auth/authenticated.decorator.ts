import { applyDecorators, UseGuards } from '@nestjs/common';
import { ApiMeterGuard } from '../meter/api-meter.guard';
import { ApiKeyGuard } from './api-key.guard';

/** A public or stream route: API key required, counted on the daily meter. */
export const MeteredApiRoute = () => applyDecorators(UseGuards(ApiKeyGuard, ApiMeterGuard));

/** A first-party `/v1/private/*` route: API key required, not metered. */
export const PrivateApiRoute = () => applyDecorators(UseGuards(ApiKeyGuard));
