import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { requestContext } from '@waggle/platform';
import type { Request, Response } from 'express';
import { ApiMeter } from './api-meter';

/**
 * A webhook trigger's admission (after its secret and its Idempotency-Key): no API key and no
 * daily meter, so the workspace's budgets and the end user's budgets and limits (the body's
 * `user`) apply (ApiMeter.admitTrigger). A trigger refused after it was admitted gives back its
 * reservation, as on the API-key routes.
 */
@Injectable()
export class TriggerAdmissionGuard implements CanActivate {
  constructor(private readonly meter: ApiMeter) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const request = http.getRequest<Request & { webhookTarget?: { workspace_id: string } }>();
    const workspaceId = request.webhookTarget?.workspace_id;
    if (workspaceId === undefined) throw new Error('TriggerAdmissionGuard runs after the webhook secret guard');
    const requestId = requestContext.get()?.requestId ?? '';
    await this.meter.admitTrigger(workspaceId, {
      runStarting: true,
      requestId,
      body: request.body,
      contentLength: request.headers['content-length'],
    });
    const response = http.getResponse<Response>();
    response.once('finish', () => {
      if (response.statusCode >= 400) this.meter.release(workspaceId, requestId);
    });
    return true;
  }
}
