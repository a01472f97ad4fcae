import { SEARCH_MAX_LENGTH } from "@hikaya/contracts";
import { useEffect, useId, useState } from "react";
import { useTranslation } from "../../lib/i18n.ts";

/** A search box's text and the search it asks for once typing pauses (trimmed), so each keystroke is not a request. */
export function useSearch(delayMs = 300) {
  const [text, setText] = useState("");
  const [q, setQ] = useState("");
  useEffect(() => {
    const timer = setTimeout(() => setQ(text.trim()), delayMs);
    return () => clearTimeout(timer);
  }, [text, delayMs]);
  return { text, setText, q };
}

/** The search field of a console list; the server refuses longer searches, so the field stops there too. */
export function SearchBox({ label, search, dir }: { label: string; search: ReturnType<typeof useSearch>; dir?: "ltr" }) {
  const id = useId();
  return (
    <div className="admin-card admin-toolbar">
      <label htmlFor={id} className="visually-hidden">
        {label}
      </label>
      <input
        id={id}
        type="search"
        className={`admin-input${dir === "ltr" ? " ltr" : ""}`}
        placeholder={label}
        maxLength={SEARCH_MAX_LENGTH}
        value={search.text}
        onChange={(e) => search.setText(e.target.value)}
      />
    </div>
  );
}

/** "Load more" under a paged list, while the server says there is another page. */
export function LoadMore({
  query,
}: {
  query: { hasNextPage: boolean; isFetchingNextPage: boolean; fetchNextPage: () => unknown };
}) {
  const { t } = useTranslation("admin");
  if (!query.hasNextPage) return null;
  return (
    <div className="admin-actions admin-load-more">
      <button
        type="button"
        className="admin-button"
        disabled={query.isFetchingNextPage}
        aria-busy={query.isFetchingNextPage}
        onClick={() => void query.fetchNextPage()}
      >
        {t("common.loadMore")}
      </button>
    </div>
  );
}
