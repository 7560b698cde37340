import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Schema } from './api.js';

export type User = Schema<'User'>;
export type Role = Schema<'Role'>;

const RANK: Record<Role, number> = { owner: 3, admin: 2, member: 1 };

/** True when `role` is at least `required` (owner > admin > member), as the server decides. */
export function atLeast(role: Role, required: Role): boolean {
  return RANK[role] >= RANK[required];
}

export interface Session {
  user: User;
  /** Ends the session on the server (logout) and returns to sign-in. */
  signOut: () => Promise<void>;
}

export const SessionContext = createContext<Session | null>(null);

/** The signed-in user; only used inside the signed-in shell. */
export function useSession(): Session {
  const s = useContext(SessionContext);
  if (!s) throw new Error('useSession outside the signed-in shell');
  return s;
}

/** True when the signed-in user is an admin or owner. */
export function useIsAdmin(): boolean {
  return atLeast(useSession().user.role, 'admin');
}
