import { useQuery } from '@tanstack/react-query';
import { createContext, useContext, type ReactNode } from 'react';
import { apiGet } from '../api/api-client';

/** `GET /v1/private/workspace`: the key's workspace and the key's own id. */
export interface WorkspaceView {
  workspace: { id: string; name: string; plan: string; language: string; created_at: string };
  api_key: { id: string };
}

export const WORKSPACE_PATH = '/v1/private/workspace';

const WorkspaceContext = createContext<WorkspaceView | null>(null);

/** Reads the key's workspace once per session; its id is what the public collections take in their path. */
export function useWorkspaceQuery(key: string | null) {
  return useQuery({
    queryKey: ['workspace', key],
    queryFn: ({ signal }) => apiGet<WorkspaceView>(key ?? '', WORKSPACE_PATH, signal),
    enabled: key !== null,
    staleTime: Infinity,
  });
}

export function WorkspaceProvider({ value, children }: { value: WorkspaceView; children: ReactNode }) {
  return <WorkspaceContext.Provider value={value}>{children}</WorkspaceContext.Provider>;
}

/** The logged-in key's workspace: every screen under the layout has it. */
export function useWorkspace(): WorkspaceView {
  const workspace = useContext(WorkspaceContext);
  if (!workspace) throw new TypeError('useWorkspace outside WorkspaceProvider');
  return workspace;
}

/** A public collection's path for the logged-in workspace: `/v1/public/workspaces/<id>/<rest>`. */
export function useWorkspacePath(): (rest: string) => string {
  const { workspace } = useWorkspace();
  return (rest: string) => `/v1/public/workspaces/${workspace.id}/${rest.replace(/^\//, '')}`;
}
