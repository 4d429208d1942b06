import { startTelemetry } from '@waggle/telemetry';

startTelemetry('gateway');
