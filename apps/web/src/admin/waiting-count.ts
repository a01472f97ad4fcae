/**
 * How many conversations wait for a facilitator's reply (the console's navigation) and how many have messages no
 * operator has read (the tab's title). Kept live by the facilitators' message stream: any new message recounts.
 */
import type { InboxBadge } from "@hikaya/contracts";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect } from "react";
import { consoleApi } from "./api.ts";
import { consoleStream } from "./console-stream.ts";

/** The same key as the inbox's (inbox-api.ts badgeKey): marking a conversation read there recounts here. */
const waitingKey = ["admin", "inbox", "waiting"] as const;

export function useInboxBadge(enabled: boolean): InboxBadge {
  const client = useQueryClient();
  const { data } = useQuery({
    queryKey: waitingKey,
    queryFn: () => consoleApi<InboxBadge>("/admin/conversations/waiting"),
    enabled,
    refetchInterval: 120_000,
  });
  useEffect(() => {
    if (!enabled) return;
    let timer: number | undefined;
    const stop = consoleStream.subscribe({
      onMessage: () => {
        window.clearTimeout(timer);
        timer = window.setTimeout(() => void client.invalidateQueries({ queryKey: waitingKey }), 150);
      },
    });
    return () => {
      window.clearTimeout(timer);
      stop();
    };
  }, [client, enabled]);
  return { count: data?.count ?? 0, unread: data?.unread ?? 0 };
}
