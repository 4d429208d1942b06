import { startTelemetry } from '@waggle/telemetry';

startTelemetry('asset');
