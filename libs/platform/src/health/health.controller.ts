import { Controller, Get, HttpCode, Res } from '@nestjs/common';
import type { Response } from 'express';
import { ReadinessService } from './readiness.service';

/** `/health/live` (the process answers) and `/health/ready` (its dependencies answer). */
@Controller('health')
export class HealthController {
  constructor(private readonly readiness: ReadinessService) {}

  @Get('live')
  @HttpCode(200)
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('ready')
  async ready(@Res({ passthrough: true }) response: Response): Promise<unknown> {
    const { ready, body } = await this.readiness.report();
    response.status(ready ? 200 : 503);
    return body;
  }
}
