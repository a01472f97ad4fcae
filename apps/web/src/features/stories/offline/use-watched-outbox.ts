import { useQueryClient } from "@tanstack/react-query";
import { useEffect } from "react";
import { meQuery } from "../../../lib/me.ts";
import { postWatched, storiesKey } from "../api/stories.ts";
import { flushWatched } from "./watched-outbox.ts";

const screens = new Set<() => void>();
/** A "watched" sent while no story screen was open: the next one to open refreshes the list. */
let unseen = false;
let listening = false;

function flushNow() {
  void flushWatched((item) => postWatched(item.storyId, item.userId)).then((sent) => {
    if (sent === 0) return;
    if (screens.size === 0) unseen = true;
    for (const refresh of screens) refresh();
  });
}

/**
 * Sends the "watched" kept offline (watched-outbox.ts) when a story screen opens and whenever the browser is back
 * online, from then on on every screen; the list and the profile follow what the server then unlocks.
 */
export function useWatchedOutbox() {
  const client = useQueryClient();
  useEffect(() => {
    if (!listening) {
      listening = true;
      window.addEventListener("online", flushNow);
    }
    const refresh = () => {
      void client.invalidateQueries({ queryKey: storiesKey });
      void client.invalidateQueries({ queryKey: meQuery.queryKey });
    };
    screens.add(refresh);
    if (unseen) {
      unseen = false;
      refresh();
    }
    flushNow();
    return () => {
      screens.delete(refresh);
    };
  }, [client]);
}
