export { APP_NAMES, DOMAIN_SERVICES, queueGroupOf, type AppName, type DomainService } from './services';
export { HealthPatterns, type HealthPingPattern, type HealthPingRequest, type HealthPingResponse } from './health.patterns';
export { RpcHeaders, type RpcCallContext } from './rpc-headers';
export type { RpcContract, RpcContracts, RpcPattern, RpcRequest, RpcResponse } from './rpc-contracts';
export { sendRpc, streamRpc, type RpcTransport, type SendOptions } from './send';
