import type { INestApplication } from '@nestjs/common';
import { stopTelemetry } from '@waggle/telemetry';
import { Logger } from 'nestjs-pino';
import type { BaseEnv } from '../config/env';
import { APP_ENV } from './platform.module';
import { exitOnStartupFailure, installGracefulShutdown, installProcessSafetyNet } from './run-app';

/** Everything main.ts does after telemetry: boot, report, and stop gracefully on a signal. */
export async function runMain(app: string, bootstrap: () => Promise<INestApplication>): Promise<void> {
  try {
    const nest = await bootstrap();
    const env = nest.get<BaseEnv>(APP_ENV);
    installGracefulShutdown({ app: nest, graceMs: env.SHUTDOWN_GRACE_MS }, stopTelemetry);
    installProcessSafetyNet(app, nest.get(Logger));
    nest.get(Logger).log({ msg: `${app} ready`, port: env.PORT, uptime_ms: Math.round(process.uptime() * 1000) });
  } catch (error) {
    exitOnStartupFailure(app, error);
  }
}
