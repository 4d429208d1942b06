import { Controller, Get, Query } from '@nestjs/common';
import { errorCodeCatalog, resolveLocale, type ErrorCodeCatalog } from '@waggle/errors';

/** `GET /v1/error_codes`: the public catalog of stable error codes, no authentication. */
@Controller('v1/error_codes')
export class ErrorCodesController {
  @Get()
  list(@Query('locale') locale?: unknown): ErrorCodeCatalog {
    return errorCodeCatalog(resolveLocale(locale));
  }
}
