import type { Transcript } from "@hikaya/contracts";
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from "react";
import { ChatBubble } from "../../components/chat/chat-bubble.tsx";
import { ChatComposer } from "../../components/chat/chat-composer.tsx";
import { PendingBubbles } from "../../components/chat/pending-bubbles.tsx";
import { useRequireUser } from "../../components/require-user.ts";
import { PageSpinner, Spinner } from "../../components/spinner.tsx";
import { TitleBar } from "../../components/title-bar.tsx";
import { VoiceWords } from "../../components/voice-words.tsx";
import { errorText } from "../../lib/errors.ts";
import { useTranslation } from "../../lib/i18n.ts";
import { getFreshAccessToken, getUserId } from "../../lib/session.ts";
import { toast } from "../../lib/toast.tsx";
import { type ConversationSource, useConversation } from "../../lib/use-conversation.ts";
import { fetchMessages, markRead, sendMessage } from "./api/messages.ts";
import "../../components/chat/chat.css";
import "./messages.css";

function useOnline() {
  const [online, setOnline] = useState(navigator.onLine);
  useEffect(() => {
    const on = () => setOnline(true);
    const off = () => setOnline(false);
    window.addEventListener("online", on);
    window.addEventListener("offline", off);
    return () => {
      window.removeEventListener("online", on);
      window.removeEventListener("offline", off);
    };
  }, []);
  return online;
}

/** The greeting's words when any were typed (an empty list item would be read out as nothing). */
const transcriptOrNull = (words: Transcript | null) => (words?.en || words?.ar ? words : null);

/** /chats: the family's conversation with the facilitator team, greeting audio first, live. */
export function ChatPage() {
  const { t } = useTranslation("messages");
  const signedIn = useRequireUser();
  const userId = getUserId();
  const online = useOnline();
  const [greeting, setGreeting] = useState<string | null>(null);
  const [greetingWords, setGreetingWords] = useState<Transcript | null>(null);

  const source = useMemo<ConversationSource | null>(
    () =>
      signedIn && userId
        ? {
            outboxKey: `user.${userId}`,
            livePath: "/api/messages/stream",
            liveToken: getFreshAccessToken,
            loadPage: async (before) => {
              const page = await fetchMessages(before);
              if (!before) {
                setGreeting(page.greeting);
                setGreetingWords(page.greetingTranscript ?? null);
              }
              return page;
            },
            send: sendMessage,
          }
        : null,
    [signedIn, userId],
  );
  const chat = useConversation(source);

  const scroller = useRef<HTMLDivElement>(null);
  const stick = useRef(true);
  const newestKey = `${chat.messages.at(-1)?._id ?? ""}:${chat.pending.length}:${chat.pending.at(-1)?.clientId ?? ""}:${chat.loading}`;
  // Scroll to the newest message whenever one arrives (not when older ones are loaded above).
  useLayoutEffect(() => {
    const el = scroller.current;
    if (el && stick.current && newestKey) el.scrollTop = el.scrollHeight;
  }, [newestKey]);

  const newestId = chat.messages.at(-1)?._id;
  useEffect(() => {
    if (newestId && document.visibilityState === "visible") void markRead(newestId).catch(() => undefined);
  }, [newestId]);

  const loadOlder = useCallback(async () => {
    const el = scroller.current;
    const fromBottom = el ? el.scrollHeight - el.scrollTop : 0;
    stick.current = false;
    try {
      await chat.loadOlder();
    } catch (error) {
      toast.error(errorText(error));
    }
    requestAnimationFrame(() => {
      if (el) el.scrollTop = el.scrollHeight - fromBottom;
      stick.current = true;
    });
  }, [chat]);

  const send = (draft: Parameters<typeof chat.send>[0]) => {
    stick.current = true;
    chat.send(draft).catch((error) => toast.error(errorText(error)));
  };

  if (!signedIn) return <PageSpinner />;
  return (
    <div className="screen chat-screen">
      <TitleBar title={t("title")} backTo="/" />
      <div className="chat-screen__scroll" ref={scroller}>
        {chat.hasMore && (
          <button type="button" className="chat-screen__older" onClick={loadOlder} disabled={chat.loadingOlder}>
            {chat.loadingOlder ? <Spinner size={20} /> : t("loadOlder")}
          </button>
        )}
        <ul className="chat-list" aria-label={t("title")} aria-live="polite">
          {greeting && (
            <ChatBubble
              mine={false}
              author={t("team")}
              message={{ messageType: "audio", message: greeting, createdAt: "", durationSeconds: null }}
            />
          )}
          {greeting && transcriptOrNull(greetingWords) && (
            <li className="chat-greeting-words">
              <VoiceWords transcript={greetingWords} name={t("team")} />
            </li>
          )}
          {chat.messages.map((m) => (
            <ChatBubble key={m._id} message={m} mine={m.from === userId} />
          ))}
          <PendingBubbles pending={chat.pending} retry={chat.retry} />
        </ul>
        {chat.loading && <PageSpinner />}
        {!chat.loading && chat.loadError !== null && <p className="chat-screen__note">{t("loadFailed")}</p>}
        {!chat.loading && !chat.loadError && chat.messages.length === 0 && chat.pending.length === 0 && (
          <p className="chat-screen__note">{t("empty")}</p>
        )}
      </div>
      {!online ? (
        <p className="chat-status" role="status">
          {t("offline")}
        </p>
      ) : (
        chat.status !== "live" &&
        !chat.loading && (
          <p className="chat-status" role="status">
            {t("reconnecting")}
          </p>
        )
      )}
      <ChatComposer
        onSendText={(text) => send({ messageType: "text", text })}
        onSendVoice={(r) => send({ messageType: "audio", blob: r.blob, durationSeconds: r.durationSeconds })}
        onMicError={() => toast.error(t("micError"))}
      />
    </div>
  );
}
