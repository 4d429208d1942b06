import './telemetry';
import { runMain } from '@waggle/platform';
import { bootstrap } from './bootstrap';

void runMain('invocation', bootstrap);
