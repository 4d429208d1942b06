import { AgentThreadMessageEntity } from './agent-thread-message.entity';
import { AgentThreadEntity } from './agent-thread.entity';
import { AgentToolCallEntity } from './agent-tool-call.entity';

export { AgentThreadEntity, AgentThreadMessageEntity, AgentToolCallEntity };

export const THREAD_ENTITIES = [AgentThreadEntity, AgentThreadMessageEntity, AgentToolCallEntity];
