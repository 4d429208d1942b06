import { Controller, Get, Req, Res } from '@nestjs/common';
import { serveMetricsRequest } from '@waggle/telemetry';
import type { Request, Response } from 'express';

/** `GET /metrics` beside `/health/*` on a service's HTTP port: the Prometheus text format. */
@Controller()
export class MetricsController {
  @Get('metrics')
  metrics(@Req() request: Request, @Res() response: Response): void {
    serveMetricsRequest(request, response);
  }
}
