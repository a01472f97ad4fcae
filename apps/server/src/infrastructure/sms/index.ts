import type { Config } from "../../config.ts";
import type { DB } from "../../db/database.ts";
import { OutboxProvider } from "./outbox-provider.ts";
import type { MessageProvider, OutgoingMessage, SentMessage } from "./sms-provider.ts";
import { TwilioProvider } from "./twilio-provider.ts";

export {
  listOutboxMessages,
  type MessageProvider,
  MessageSendError,
  type OutboxRow,
  type OutgoingMessage,
} from "./sms-provider.ts";

/** SMS and WhatsApp go through the configured provider; e-mail (no SMTP here) always lands in the outbox. */
export function createMessageProvider(config: Config["sms"], db: DB, fetchImpl?: typeof fetch): MessageProvider {
  const outbox = new OutboxProvider(db);
  if (config.provider === "outbox") return outbox;
  const twilio = new TwilioProvider(db, { ...config, ...(fetchImpl ? { fetch: fetchImpl } : {}) });
  return {
    name: twilio.name,
    send: (message: OutgoingMessage): Promise<SentMessage> =>
      message.channel === "email" ? outbox.send(message) : twilio.send(message),
    list: (options) => twilio.list(options),
  };
}
