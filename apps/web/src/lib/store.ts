/**
 * The client store of spec section 3: the signed-in user, which several screens share without a
 * request. Server data (stories, profile) is cached by TanStack Query, not here.
 */
import { create } from "zustand";

export interface StoreUser {
  id: string;
  email?: string | null;
  phone?: string | null;
}

interface AppStore {
  user: StoreUser | null;
  /** Whether the stored session has been checked since the page loaded. */
  userChecked: boolean;
  setUser(user: StoreUser | null): void;
}

export const useAppStore = create<AppStore>()((set) => ({
  user: null,
  userChecked: false,
  setUser: (user) => set({ user, userChecked: true }),
}));
