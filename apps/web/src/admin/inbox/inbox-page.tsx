import type { ChatMessage } from "@hikaya/contracts";
import { type QueryKey, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from "react";
import { ChatBubble } from "../../components/chat/chat-bubble.tsx";
import { ChatComposer } from "../../components/chat/chat-composer.tsx";
import { PendingBubbles } from "../../components/chat/pending-bubbles.tsx";
import { Spinner } from "../../components/spinner.tsx";
import { errorText } from "../../lib/errors.ts";
import { formatClockTime } from "../../lib/format.ts";
import { useTranslation } from "../../lib/i18n.ts";
import { Link, useParams } from "../../lib/router.tsx";
import { toast } from "../../lib/toast.tsx";
import { type ConversationSource, useConversation } from "../../lib/use-conversation.ts";
import { consoleToken, useAdminSession } from "../admin-session.ts";
import { PageHeader, QueryView } from "../components/page.tsx";
import { PhoneNumber } from "../components/phone-number.tsx";
import { consoleStream, conversationOfConsoleStream } from "../console-stream.ts";
import { formatPhone } from "../phone.ts";
import { AssignControl } from "./assign-control.tsx";
import { ConversationList, useInboxSearch } from "./conversation-list.tsx";
import { NoteForm, NoteItem, timelineOf } from "./conversation-notes.tsx";
import { NotificationsButton } from "./desktop-notifications.tsx";
import {
  badgeKey,
  conversationsKey,
  fetchConversationPage,
  inboxQueries,
  markConversationRead,
  notesKey,
  personKey,
  sendReply,
} from "./inbox-api.ts";
import { applyLiveMessage, type ListView, type LoadedList, markReadInList } from "./live-list.ts";
import { savedRepliesQuery } from "./saved-replies-api.ts";
import { whatsappWindowOf } from "./whatsapp-window.ts";
import "../../components/chat/chat.css";
import "./inbox.css";

/** A list's search and filter, from its query key (inboxQueries.conversations). */
const viewOf = (key: QueryKey): ListView => (key[3] as ListView | undefined) ?? { q: "", filter: null };

/**
 * The facilitators' inbox: conversations newest first with unread counts (kept current by the live
 * stream of all conversations), and the open conversation beside them with the person's profile and
 * progress. On a phone the list and the conversation are separate screens.
 */
export function InboxPage() {
  const { userId } = useParams();
  const { t } = useTranslation("inbox");
  const client = useQueryClient();

  useEffect(() => {
    let timer: number | undefined;
    let reconnected = false;
    /** Lists to read again, together after a short pause (a burst asks once per list). */
    const stale = new Map<string, QueryKey>();
    const refresh = (key: QueryKey = conversationsKey) => {
      stale.set(JSON.stringify(key), key);
      window.clearTimeout(timer);
      timer = window.setTimeout(() => {
        for (const queryKey of stale.values()) void client.invalidateQueries({ queryKey });
        stale.clear();
      }, 150);
    };
    // A pushed message changes its own row: applied to every loaded list where it is, read again only where the
    // list cannot place it (see live-list.ts).
    const apply = (message: ChatMessage) => {
      for (const [key, data] of client.getQueriesData<LoadedList>({ queryKey: conversationsKey })) {
        // A list being read may come back without this message: read it again once it has.
        const fetching = client.getQueryState(key)?.fetchStatus === "fetching";
        const next = data && !fetching ? applyLiveMessage(data, message, viewOf(key)) : "refetch";
        if (next === "refetch") refresh(key);
        else if (next !== data) client.setQueryData(key, next);
      }
    };
    const stop = consoleStream.subscribe({
      onMessage: apply,
      // Another facilitator took or released a conversation: its label in the list and its Assign button.
      onAssignment: ({ conversation }) => {
        refresh();
        void client.invalidateQueries({ queryKey: conversation ? inboxQueries.person(conversation).queryKey : personKey });
      },
      // A colleague's private note: that conversation's notes (all of them after a gap).
      onNote: ({ conversation }) => {
        void client.invalidateQueries({ queryKey: conversation ? inboxQueries.notes(conversation).queryKey : notesKey });
      },
      // Assignments and notes are not replayed: after a reconnect, read them again in case one was missed.
      onReady: () => {
        if (reconnected) {
          refresh();
          void client.invalidateQueries({ queryKey: notesKey });
        }
        reconnected = true;
      },
    });
    return () => {
      window.clearTimeout(timer);
      stop();
    };
  }, [client]);

  return (
    <div className={`inbox${userId ? " inbox--open" : ""}`}>
      <section className="inbox__list" aria-label={t("title")}>
        <PageHeader title={t("title")} subtitle={t("subtitle")} actions={<NotificationsButton />} />
        <ConversationList />
      </section>
      <section className="inbox__pane">
        {userId ? (
          <ConversationView key={userId} userId={userId} />
        ) : (
          <div className="inbox__placeholder admin-muted">{t("select")}</div>
        )}
      </section>
    </div>
  );
}

function ConversationView({ userId }: { userId: string }) {
  const { t, i18n } = useTranslation("inbox");
  const { t: tm } = useTranslation("messages");
  const client = useQueryClient();
  const session = useAdminSession();
  const me = session.status === "admin" ? session.userId : null;
  const isAdmin = session.status === "admin" && session.role === "admin";
  const person = useQuery(inboxQueries.person(userId));
  const notes = useQuery(inboxQueries.notes(userId));
  const [noting, setNoting] = useState(false);
  const saved = useQuery(savedRepliesQuery());
  // Saved replies go in the family's language, whatever the console's.
  const language = person.data?.language;
  const quickReplies = useMemo(
    () =>
      language
        ? (saved.data ?? []).map((r) => ({ id: r.id, title: r.title, text: language === "ar" ? r.textAr : r.textEn }))
        : undefined,
    [saved.data, language],
  );
  const { search } = useInboxSearch();
  const source = useMemo<ConversationSource>(
    () => ({
      outboxKey: `admin.${me ?? ""}.${userId}`,
      livePath: "/api/admin/messages/stream",
      liveParams: { conversation: userId },
      liveToken: consoleToken,
      loadPage: (before) => fetchConversationPage(userId, before),
      send: (item) => sendReply(userId, item),
      belongs: (m: ChatMessage) => m.conversation === userId,
      connect: conversationOfConsoleStream(userId, async () => (await fetchConversationPage(userId)).messages),
    }),
    [me, userId],
  );
  const chat = useConversation(source);
  const scroller = useRef<HTMLDivElement>(null);
  const timeline = timelineOf(chat.messages, notes.data ?? [], chat.hasMore);
  const newestKey = `${chat.messages.at(-1)?._id ?? ""}:${chat.pending.length}:${chat.loading}:${notes.data?.length ?? 0}`;
  useLayoutEffect(() => {
    const el = scroller.current;
    if (el && newestKey) el.scrollTop = el.scrollHeight;
  }, [newestKey]);

  const newestId = chat.messages.at(-1)?._id;
  useEffect(() => {
    if (!newestId) return;
    void markConversationRead(userId, newestId)
      .then(() => {
        for (const [key, data] of client.getQueriesData<LoadedList>({ queryKey: conversationsKey }))
          if (data) client.setQueryData(key, markReadInList(data, userId, viewOf(key)));
        // The tab title's unread count.
        void client.invalidateQueries({ queryKey: badgeKey });
      })
      .catch(() => undefined);
  }, [newestId, userId, client]);

  const send = (draft: Parameters<typeof chat.send>[0]) => chat.send(draft).catch((error) => toast.error(errorText(error)));
  const phone = person.data?.phone ?? null;
  const name = person.data?.name || formatPhone(phone) || person.data?.email || t("noName");
  const whatsapp = whatsappWindowOf(person.data?.whatsappWindowUntil, chat.messages, Date.now());

  return (
    <div className="inbox-conversation">
      <div className="inbox-conversation__chat admin-card">
        <header className="inbox-conversation__header">
          <Link to={{ pathname: "/admin/inbox", search }} className="inbox-conversation__back admin-link">
            {t("back")}
          </Link>
          <h2>{!person.data?.name && phone ? <PhoneNumber phone={phone} /> : <bdi>{name}</bdi>}</h2>
          <AssignControl userId={userId} assignedTo={person.data?.assignedTo ?? null} me={me} isAdmin={isAdmin} />
          {whatsapp && (
            <span className={`inbox-conversation__whatsapp${whatsapp.open ? " is-open" : ""}`}>
              {whatsapp.open
                ? t("whatsapp.open", { time: formatClockTime(whatsapp.until, i18n.language) })
                : t("whatsapp.closed")}
            </span>
          )}
          <button
            type="button"
            className="admin-button admin-button--small"
            aria-expanded={noting}
            onClick={() => setNoting((v) => !v)}
          >
            {t("notes.add")}
          </button>
          <span className={`inbox-conversation__live${chat.status === "live" ? " is-live" : ""}`}>
            {chat.status === "live" ? t("live") : t("reconnecting")}
          </span>
        </header>
        <div className="inbox-conversation__scroll" ref={scroller}>
          {chat.hasMore && (
            <button
              type="button"
              className="chat-screen__older admin-button admin-button--small"
              onClick={() => void chat.loadOlder()}
            >
              {tm("loadOlder")}
            </button>
          )}
          {chat.loading ? (
            <div className="admin-loading">
              <Spinner />
            </div>
          ) : (
            <ul className="chat-list" aria-label={name} aria-live="polite">
              {timeline.map((item) =>
                item.kind === "note" ? (
                  <NoteItem key={`note-${item.note.id}`} note={item.note} me={me} />
                ) : (
                  <ChatBubble
                    key={item.message._id}
                    message={item.message}
                    mine={item.message.senderRole === "facilitator"}
                    colleague={item.message.senderRole === "facilitator" && item.message.from !== me}
                    channel={item.message.channel === "whatsapp" ? t("whatsapp.mark") : undefined}
                    // Only the signed-in operator's own replies say "You"; a colleague's carry their name.
                    author={
                      item.message.senderRole !== "facilitator"
                        ? undefined
                        : item.message.from === me
                          ? t("youAuthor")
                          : item.message.senderName || t("facilitator")
                    }
                  />
                ),
              )}
              <PendingBubbles pending={chat.pending} retry={chat.retry} />
            </ul>
          )}
        </div>
        {noting && <NoteForm userId={userId} onDone={() => setNoting(false)} />}
        <ChatComposer
          quickReplies={quickReplies}
          onSendText={(text) => void send({ messageType: "text", text })}
          onSendVoice={(r) => void send({ messageType: "audio", blob: r.blob, durationSeconds: r.durationSeconds })}
          onMicError={() => toast.error(tm("micError"))}
        />
      </div>
      <aside className="inbox-person admin-card" aria-label={t("profile")}>
        <QueryView query={person}>
          {(p) => (
            <>
              <h2>{t("profile")}</h2>
              <dl className="inbox-person__facts">
                <dt>{t("name")}</dt>
                <dd>
                  <bdi>{p.name || "—"}</bdi>
                </dd>
                <dt>{t("phone")}</dt>
                <dd>{p.phone ? <PhoneNumber phone={p.phone} /> : "—"}</dd>
                {p.email && (
                  <>
                    <dt>{t("email")}</dt>
                    <dd className="ltr">{p.email}</dd>
                  </>
                )}
                <dt>{t("city")}</dt>
                <dd>
                  <bdi>{p.city || "—"}</bdi>
                </dd>
                <dt>{t("gender")}</dt>
                <dd>
                  {p.gender === "Male" ? tm("profile.male") : p.gender === "Female" ? tm("profile.female") : p.gender || "—"}
                </dd>
                <dt>{t("ageGroup")}</dt>
                <dd>{p.ageGroup ? tm(`profile.ages.${p.ageGroup}` as "profile.ages.51+", { defaultValue: p.ageGroup }) : "—"}</dd>
              </dl>
              <h3>{p.watchedStories.length === 0 ? t("progressTitle") : t("progress", { count: p.watchedStories.length })}</h3>
              {p.watchedStories.length === 0 ? (
                <p className="admin-muted">{t("noneWatched")}</p>
              ) : (
                <ol className="inbox-person__stories">
                  {p.watchedStories.map((s) => (
                    <li key={s.storyId}>
                      <span className="inbox-person__order">{s.order}</span>
                      <bdi>{s.title}</bdi>
                    </li>
                  ))}
                </ol>
              )}
              <Link className="admin-link" to={`/admin/users/${p.userId}`}>
                {t("openPerson")}
              </Link>
            </>
          )}
        </QueryView>
      </aside>
    </div>
  );
}
