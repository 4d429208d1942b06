import { AgentContracts } from './agent.patterns';
import { AssetContracts } from './asset.patterns';
import { CallbackDispatcherContracts } from './callback-dispatcher.patterns';
import { CatalogContracts } from './catalog.patterns';
import { DatasetContracts } from './datasets.patterns';
import { DeadLetterListContracts, DeadLetterReplayContracts } from './dead-letters.patterns';
import { ExperimentContracts } from './experiments.patterns';
import { GovernanceContracts } from './governance';
import { GovernanceAdminContracts } from './governance-admin';
import { ProviderCredentialContracts } from './provider-credentials';
import { HealthContracts } from './health.patterns';
import { InvocationContracts } from './invocation.patterns';
import { KnowledgeBaseContracts } from './knowledge-base.patterns';
import { ReleaseContracts } from './releases';
import type { ContractsByPattern, RpcContract } from './rpc-contract';

/**
 * Every NATS request pattern, by name: each service's own contract map, combined. A pattern
 * missing here can be neither sent (`send`/`send`) nor handled (`@RpcHandler`).
 */
export type RpcContracts = ContractsByPattern<typeof HealthContracts> &
  ContractsByPattern<typeof CatalogContracts> &
  ContractsByPattern<typeof InvocationContracts> &
  ContractsByPattern<typeof ReleaseContracts> &
  ContractsByPattern<typeof GovernanceContracts> &
  ContractsByPattern<typeof GovernanceAdminContracts> &
  ContractsByPattern<typeof ProviderCredentialContracts> &
  ContractsByPattern<typeof CallbackDispatcherContracts> &
  ContractsByPattern<typeof AgentContracts> &
  ContractsByPattern<typeof AssetContracts> &
  ContractsByPattern<typeof KnowledgeBaseContracts> &
  ContractsByPattern<typeof DeadLetterListContracts> &
  ContractsByPattern<typeof DeadLetterReplayContracts> &
  ContractsByPattern<typeof ExperimentContracts> &
  ContractsByPattern<typeof DatasetContracts>;

export type RpcPattern = keyof RpcContracts;
export type RpcRequest<P extends RpcPattern> = RpcContracts[P] extends RpcContract<string, infer Request> ? Request : never;
export type RpcResponse<P extends RpcPattern> = RpcContracts[P] extends RpcContract<string, unknown, infer Response> ? Response : never;
/** Patterns answered once (`send`) and patterns answered with a stream (`send`). */
export type ReplyPattern = { [P in RpcPattern]: RpcContracts[P]['kind'] extends 'reply' ? P : never }[RpcPattern];
export type StreamPattern = { [P in RpcPattern]: RpcContracts[P]['kind'] extends 'stream' ? P : never }[RpcPattern];

/** The same contracts at run time, for the handler side's payload validation. */
export const RPC_CONTRACTS: { readonly [P in RpcPattern]: RpcContracts[P] } = Object.fromEntries(
  [
    HealthContracts,
    CatalogContracts,
    InvocationContracts,
    ReleaseContracts,
    GovernanceContracts,
    GovernanceAdminContracts,
    ProviderCredentialContracts,
    CallbackDispatcherContracts,
    AgentContracts,
    AssetContracts,
    KnowledgeBaseContracts,
    DeadLetterListContracts,
    DeadLetterReplayContracts,
    ExperimentContracts,
    DatasetContracts,
  ].flatMap((contracts) => Object.values(contracts).map((contract: RpcContract) => [contract.pattern, contract])),
) as { readonly [P in RpcPattern]: RpcContracts[P] };
