import { Module } from '@nestjs/common';
import { ErrorCodesController } from './error-codes.controller';

/** `GET /v1/error_codes`: the public error catalog. */
@Module({ controllers: [ErrorCodesController] })
export class ErrorCodesModule {}
