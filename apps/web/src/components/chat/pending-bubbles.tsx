import { errorText } from "../../lib/errors.ts";
import { toast } from "../../lib/toast.tsx";
import type { OutboxItem } from "../../lib/use-conversation.ts";
import { ChatBubble } from "./chat-bubble.tsx";

/** Own messages not yet stored: pending, queued offline, or failed with a retry control. */
export function PendingBubbles({ pending, retry }: { pending: OutboxItem[]; retry: (clientId: string) => Promise<unknown> }) {
  return pending.map((item) => (
    <ChatBubble
      key={item.clientId}
      mine
      delivery={item.status}
      blob={item.blob}
      message={{
        messageType: item.messageType,
        message: item.text ?? "",
        createdAt: item.createdAt,
        durationSeconds: item.durationSeconds ?? null,
      }}
      onRetry={() => void retry(item.clientId).catch((error) => toast.error(errorText(error)))}
    />
  ));
}
