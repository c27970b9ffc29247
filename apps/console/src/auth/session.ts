import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { ApiClient } from '../api/api-client';
import type { Me } from '../api/types';
import type { Permissions } from './permissions';

/** The signed-in key: its client, who it is, what it may do. */
export interface Session {
  readonly client: ApiClient;
  readonly me: Me;
  readonly can: Permissions;
}

/** Provides the {@link Session} to the pages. */
export const SessionContext = createContext<Session | null>(null);

/** The current session; only pages rendered after sign-in use it. */
export function useSession(): Session {
  const session = useContext(SessionContext);
  if (session === null) throw new Error('useSession() outside a signed-in page');
  return session;
}
