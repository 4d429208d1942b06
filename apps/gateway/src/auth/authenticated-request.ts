import type { ResolvedApiKey } from '@waggle/contracts';
import type { LocalizedRequest } from '../errors/http-exception.filter';

/** A request that passed the API-key guard. */
export type AuthenticatedRequest = LocalizedRequest & { auth: ResolvedApiKey };
