import { startTelemetry } from '@waggle/telemetry';

startTelemetry('agent');
