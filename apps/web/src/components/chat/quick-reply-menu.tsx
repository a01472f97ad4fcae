import { useTranslation } from "../../lib/i18n.ts";
import type { QuickReply } from "./quick-replies.ts";

/**
 * The saved replies matching what is typed, above the composer: a listbox the text field controls (arrows move,
 * Enter picks, Escape closes; a tap picks too). Only the console passes replies, so the family never sees it.
 */
export function QuickReplyMenu({
  id,
  replies,
  active,
  onPick,
}: {
  id: string;
  replies: QuickReply[];
  active: number;
  onPick(reply: QuickReply): void;
}) {
  const { t } = useTranslation("messages");
  return (
    <div className="quick-replies">
      <div id={id} role="listbox" aria-label={t("savedReplies")} className="quick-replies__list">
        {replies.map((r, i) => (
          // biome-ignore lint/a11y/useKeyWithClickEvents: the composer's field handles the keyboard for the listbox.
          <div
            key={r.id}
            tabIndex={-1}
            id={`${id}-${i}`}
            role="option"
            aria-selected={i === active}
            className="quick-replies__item"
            // Before the field's blur: the pick happens while the list is still there.
            onMouseDown={(e) => e.preventDefault()}
            onClick={() => onPick(r)}
          >
            <span className="quick-replies__title">
              <bdi>{r.title}</bdi>
            </span>
            <span className="quick-replies__text" dir="auto">
              {r.text}
            </span>
          </div>
        ))}
      </div>
      {replies.length === 0 && (
        <p className="quick-replies__none" role="status">
          {t("noSavedReply")}
        </p>
      )}
    </div>
  );
}
