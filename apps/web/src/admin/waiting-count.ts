/**
 * How many conversations wait for a facilitator's reply, for the console's navigation. Kept live by the
 * facilitators' message stream: any new message (theirs or a reply) recounts.
 */
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect } from "react";
import { consoleApi } from "./api.ts";
import { consoleStream } from "./console-stream.ts";

const waitingKey = ["admin", "inbox", "waiting"] as const;

export function useWaitingConversations(enabled: boolean): number {
  const client = useQueryClient();
  const { data } = useQuery({
    queryKey: waitingKey,
    queryFn: () => consoleApi<{ count: number }>("/admin/conversations/waiting"),
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
  return data?.count ?? 0;
}
