import { Controller, Get, HttpCode, Res } from '@nestjs/common';
import type { Response } from 'express';
import { ReadinessService } from './readiness.service';

/** When this process started: a supervisor's or a test's way to see that it was never restarted. */
const STARTED_AT = new Date(Date.now() - Math.round(process.uptime() * 1000)).toISOString();

/** `/health/live` (the process answers, and since when) and `/health/ready` (its dependencies answer). */
@Controller('health')
export class HealthController {
  constructor(private readonly readiness: ReadinessService) {}

  @Get('live')
  @HttpCode(200)
  live(): { status: 'ok'; started_at: string } {
    return { status: 'ok', started_at: STARTED_AT };
  }

  @Get('ready')
  async ready(@Res({ passthrough: true }) response: Response): Promise<unknown> {
    const { ready, body } = await this.readiness.report();
    response.status(ready ? 200 : 503);
    return body;
  }
}
