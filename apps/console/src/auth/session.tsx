import { createContext, useCallback, useContext, useMemo, useState, type ReactNode } from 'react';
import { clearKey, readKey, saveKey } from './key-store';

interface Session {
  /** The workspace key, or null when logged out. */
  readonly key: string | null;
  logIn(key: string): void;
  logOut(): void;
}

const SessionContext = createContext<Session | null>(null);

export function SessionProvider({ children }: { children: ReactNode }) {
  const [key, setKey] = useState(() => readKey(window.sessionStorage));
  const logIn = useCallback((value: string) => {
    saveKey(window.sessionStorage, value);
    setKey(readKey(window.sessionStorage));
  }, []);
  const logOut = useCallback(() => {
    clearKey(window.sessionStorage);
    setKey(null);
  }, []);
  const session = useMemo(() => ({ key, logIn, logOut }), [key, logIn, logOut]);
  return <SessionContext.Provider value={session}>{children}</SessionContext.Provider>;
}

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new TypeError('useSession outside SessionProvider');
  return session;
}
