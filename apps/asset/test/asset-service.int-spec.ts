// Test code is not part of the app: the type:app boundary (no type:testing) is meant for src/.
import { describeServiceBasics } from '@waggle/testing';
import { bootstrap } from '../src/bootstrap';

// The asset service started in-process by its own bootstrap and called over NATS as the
// gateway calls it, without the gateway. Its own patterns' specs grow here with them.
describeServiceBasics('asset', bootstrap, ['postgres', 'nats']);
