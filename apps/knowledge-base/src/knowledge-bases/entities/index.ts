import { KnowledgeBaseItemEntity } from './knowledge-base-item.entity';
import { KnowledgeBaseEntity } from './knowledge-base.entity';
import { WorkspaceSettingEntity } from './workspace-setting.entity';

export const KNOWLEDGE_BASE_ENTITIES = [KnowledgeBaseEntity, KnowledgeBaseItemEntity, WorkspaceSettingEntity];
