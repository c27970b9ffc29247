import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { AgentLedgerClient, MeAnswer } from '@agent-ledger/client';
import type { Permissions } from './permissions';

/** The signed-in key: its client, who it is, what it may do. */
export interface Session {
  readonly client: AgentLedgerClient;
  readonly me: MeAnswer;
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
