import { startTelemetry } from '@waggle/telemetry';

startTelemetry('callback-dispatcher');
