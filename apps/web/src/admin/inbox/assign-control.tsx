import type { ConversationAssignee } from "@hikaya/contracts";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useId } from "react";
import { errorText } from "../../lib/errors.ts";
import { useTranslation } from "../../lib/i18n.ts";
import { toast } from "../../lib/toast.tsx";
import { assignConversation, conversationsKey, handOver, inboxQueries } from "./inbox-api.ts";

/**
 * Who has the conversation, "Assign to me" / "Unassign", and, for an admin or the owner, "Hand to" a colleague (who is
 * told live in their console).
 */
export function AssignControl({
  userId,
  assignedTo,
  me,
  isAdmin,
}: {
  userId: string;
  assignedTo: ConversationAssignee | null;
  me: string | null;
  isAdmin: boolean;
}) {
  const { t } = useTranslation("inbox");
  const client = useQueryClient();
  const selectId = useId();
  const mine = assignedTo !== null && assignedTo.userId === me;
  const canHand = isAdmin || mine;
  const operators = useQuery({ ...inboxQueries.operators(), enabled: canHand });
  const done = {
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: inboxQueries.person(userId).queryKey });
      void client.invalidateQueries({ queryKey: conversationsKey });
    },
    onError: (error: unknown) => toast.error(errorText(error)),
  };
  const assign = useMutation({ mutationFn: (toMe: boolean) => assignConversation(userId, toMe), ...done });
  const hand = useMutation({ mutationFn: (to: string) => handOver(userId, to), ...done });
  const colleagues = (operators.data ?? []).filter((o) => o.userId !== assignedTo?.userId);
  return (
    <div className="inbox-conversation__assign">
      {assignedTo && (
        <span className="admin-muted">{mine ? t("assignedToYou") : t("assignedTo", { name: assignedTo.name })}</span>
      )}
      <button
        type="button"
        className="admin-button admin-button--small"
        disabled={assign.isPending}
        onClick={() => assign.mutate(!mine)}
      >
        {mine ? t("unassign") : t("assignToMe")}
      </button>
      {canHand && colleagues.length > 0 && (
        <>
          <label htmlFor={selectId} className="visually-hidden">
            {t("handTo")}
          </label>
          <select
            id={selectId}
            className="admin-input admin-input--small"
            value=""
            disabled={hand.isPending}
            onChange={(e) => e.target.value && hand.mutate(e.target.value)}
          >
            <option value="">{t("handTo")}</option>
            {colleagues.map((o) => (
              <option key={o.userId} value={o.userId}>
                {o.userId === me ? t("youAuthor") : o.name}
              </option>
            ))}
          </select>
        </>
      )}
    </div>
  );
}
