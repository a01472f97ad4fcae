import {
  type ConversationSummary,
  INBOX_FILTERS,
  type InboxCounts,
  type InboxFilter,
  SEARCH_MAX_LENGTH,
} from "@hikaya/contracts";
import { useInfiniteQuery } from "@tanstack/react-query";
import { useCallback, useEffect, useId, useState } from "react";
import { Spinner } from "../../components/spinner.tsx";
import { formatChatTime, formatShortDate } from "../../lib/format.ts";
import { useTranslation } from "../../lib/i18n.ts";
import { NavLink, useSearchParams } from "../../lib/router.tsx";
import { useAdminSession } from "../admin-session.ts";
import { QueryView } from "../components/page.tsx";
import { PhoneNumber } from "../components/phone-number.tsx";
import { inboxQueries } from "./inbox-api.ts";

const SEARCH_DELAY_MS = 300;

function whenLabel(iso: string, language: string): string {
  const d = new Date(iso);
  const today = new Date();
  if (d.toDateString() === today.toDateString()) return formatChatTime(iso, language);
  return formatShortDate(iso, language);
}

/** The tabs that show how many conversations they hold. */
const countOf = (counts: InboxCounts | undefined, f: InboxFilter | null): number | null => {
  if (!counts) return null;
  if (f === null) return counts.all;
  return f === "mine" || f === "unassigned" ? counts[f] : null;
};

const filterOf = (value: string | null): InboxFilter | null =>
  (INBOX_FILTERS as readonly string[]).includes(value ?? "") ? (value as InboxFilter) : null;

/**
 * The search and filter live in the address (`?q=…&filter=…`), so opening a conversation and coming back (a
 * separate screen on a phone) keeps them, and a link to a search can be shared.
 */
export function useInboxSearch() {
  const [params, setParams] = useSearchParams();
  const q = params.get("q") ?? "";
  const filter = filterOf(params.get("filter"));
  const update = useCallback(
    (next: { q?: string; filter?: InboxFilter | null }) =>
      setParams(
        (current) => {
          const out = new URLSearchParams(current);
          for (const [key, value] of Object.entries(next)) {
            if (value) out.set(key, value);
            else out.delete(key);
          }
          return out;
        },
        { replace: true },
      ),
    [setParams],
  );
  return { q, filter, update, search: params.toString() ? `?${params}` : "" };
}

/** The conversation list: search box, filter tabs, every conversation page by page. */
export function ConversationList() {
  const { t, i18n } = useTranslation("inbox");
  const { q, filter, update, search } = useInboxSearch();
  const [draft, setDraft] = useState(q);
  const searchId = useId();
  const list = useInfiniteQuery(inboxQueries.conversations(q.trim(), filter));
  const counts = list.data?.pages[0]?.counts;

  // Typing searches after a short pause, not on every key.
  useEffect(() => {
    if (draft === q) return;
    const timer = window.setTimeout(() => update({ q: draft }), SEARCH_DELAY_MS);
    return () => window.clearTimeout(timer);
  }, [draft, q, update]);

  const seen = new Set<string>();
  const rows = (list.data?.pages ?? [])
    .flatMap((p) => p.conversations)
    // A refetch while the list is paged can, for a moment, show a conversation that just moved on two pages.
    .filter((c) => !seen.has(c.userId) && seen.add(c.userId));

  return (
    <>
      <search className="inbox__search">
        <label htmlFor={searchId} className="visually-hidden">
          {t("search")}
        </label>
        <input
          id={searchId}
          type="search"
          className="admin-input"
          value={draft}
          maxLength={SEARCH_MAX_LENGTH}
          placeholder={t("searchPlaceholder")}
          onChange={(e) => setDraft(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === "Enter") update({ q: draft });
          }}
        />
      </search>
      <div className="admin-tabs" role="tablist" aria-label={t("filters.label")}>
        {([null, ...INBOX_FILTERS] as const).map((f) => {
          const count = countOf(counts, f);
          return (
            <button
              key={f ?? "all"}
              type="button"
              role="tab"
              aria-selected={filter === f}
              className="admin-tab"
              onClick={() => update({ filter: f })}
            >
              {t(`filters.${f ?? "all"}`)}
              {count !== null && (
                <>
                  <span className="admin-tab__count" aria-hidden="true">
                    {count}
                  </span>
                  <span className="visually-hidden">{t("filters.count", { count })}</span>
                </>
              )}
            </button>
          );
        })}
      </div>
      <QueryView query={list}>
        {() =>
          rows.length === 0 ? (
            <p className="admin-card admin-muted">{q || filter ? t("noMatches") : t("empty")}</p>
          ) : (
            <>
              <ul className="inbox__items" aria-busy={list.isFetching}>
                {rows.map((c) => (
                  <li key={c.userId}>
                    <ConversationLink conversation={c} language={i18n.language} search={search} />
                  </li>
                ))}
              </ul>
              {list.hasNextPage && (
                <button
                  type="button"
                  className="admin-button inbox__older"
                  disabled={list.isFetchingNextPage}
                  onClick={() => void list.fetchNextPage()}
                >
                  {list.isFetchingNextPage ? <Spinner /> : t("loadOlder")}
                </button>
              )}
            </>
          )
        }
      </QueryView>
    </>
  );
}

function PersonIcon() {
  return (
    <svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true">
      <circle cx="12" cy="8" r="4" fill="currentColor" />
      <path d="M4 20c0-4 3.6-6.5 8-6.5s8 2.5 8 6.5z" fill="currentColor" />
    </svg>
  );
}

function ConversationLink({
  conversation: c,
  language,
  search,
}: {
  conversation: ConversationSummary;
  language: string;
  search: string;
}) {
  const { t } = useTranslation("inbox");
  const session = useAdminSession();
  const me = session.status === "admin" ? session.userId : null;
  const last = c.lastMessage;
  const preview = !last ? "" : last.messageType === "audio" ? t("voiceMessage") : last.message;
  return (
    <NavLink
      to={{ pathname: `/admin/inbox/${c.userId}`, search }}
      className={({ isActive }) => `inbox__item${isActive ? " inbox__item--active" : ""}`}
    >
      <span className="inbox__avatar" aria-hidden="true">
        {/* A name's first letter; a person known only by phone gets no "+" but a person's outline. */}
        {c.name?.trim() ? c.name.trim().charAt(0).toUpperCase() : <PersonIcon />}
      </span>
      <span className="inbox__summary">
        <span className="inbox__name">
          {!c.name && c.phone ? <PhoneNumber phone={c.phone} /> : <bdi>{c.name || c.email || t("noName")}</bdi>}
        </span>
        {c.name && c.phone && (
          <span className="inbox__phone">
            <PhoneNumber phone={c.phone} />
          </span>
        )}
        <span className="inbox__preview">
          {last?.senderRole === "facilitator" && (
            <span className="inbox__you">
              {last.from === me ? t("you") : t("colleague", { name: last.senderName || t("facilitator") })}
            </span>
          )}
          {/* Its own direction: an English message in the Arabic inbox is cut at its end, not at its start. */}
          <span className="inbox__text" dir="auto">
            {preview}
          </span>
        </span>
        {c.assignedTo && (
          <span className="inbox__assignee">
            {c.assignedTo.userId === me ? t("assignedToYou") : t("assignedTo", { name: c.assignedTo.name })}
          </span>
        )}
      </span>
      <span className="inbox__side">
        <time className="inbox__time" dateTime={c.lastMessageAt}>
          {whenLabel(c.lastMessageAt, language)}
        </time>
        {c.unread > 0 && (
          <span className="inbox__unread">
            <span aria-hidden="true">{c.unread}</span>
            <span className="visually-hidden">{t("unread", { count: c.unread })}</span>
          </span>
        )}
      </span>
    </NavLink>
  );
}
