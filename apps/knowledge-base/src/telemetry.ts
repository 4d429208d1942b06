import { startTelemetry } from '@waggle/telemetry';

startTelemetry('knowledge-base');
