/**
 * The client store of spec section 3: the stories list and the user. Small and synchronous; server
 * data itself is cached by TanStack Query, this holds what several screens share without a request.
 */
import { create } from "zustand";

export interface StoreUser {
  id: string;
  email?: string | null;
  phone?: string | null;
  /** How the person signed in: supabase-js session, or the phone-number API's token. */
  via: "auth" | "token";
}

export interface StoreStory {
  id: string;
  order: number;
  title: string;
  [key: string]: unknown;
}

interface AppStore {
  user: StoreUser | null;
  /** Whether the stored session has been checked since the page loaded. */
  userChecked: boolean;
  stories: StoreStory[];
  setUser(user: StoreUser | null): void;
  setStories(stories: StoreStory[]): void;
}

export const useAppStore = create<AppStore>()((set) => ({
  user: null,
  userChecked: false,
  stories: [],
  setUser: (user) => set({ user, userChecked: true }),
  setStories: (stories) => set({ stories }),
}));
