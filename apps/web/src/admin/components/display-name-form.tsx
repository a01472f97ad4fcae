import { useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useId, useState } from "react";
import { errorText } from "../../lib/errors.ts";
import { useTranslation } from "../../lib/i18n.ts";
import { consoleSession } from "../admin-session.ts";

/**
 * The signed-in operator's name in the console (user_metadata.display_name), for every operator: from their own menu,
 * and on the Team page. It labels their replies and notes for colleagues; families still see "Hikaya team", never an
 * operator's name.
 */
export function DisplayNameForm({ current, className }: { current: string | null; className?: string }) {
  const { t } = useTranslation("admin");
  const id = useId();
  const queryClient = useQueryClient();
  const [value, setValue] = useState<string | null>(null);
  const [state, setState] = useState<{ busy: boolean; error: string | null; saved: boolean }>({
    busy: false,
    error: null,
    saved: false,
  });
  async function submit(event: FormEvent) {
    event.preventDefault();
    const name = (value ?? current ?? "").trim();
    setState({ busy: true, error: null, saved: false });
    try {
      await consoleSession.updateUserData({ display_name: name || null });
      // The team list, the colleagues to hand to and the inbox's names all show it.
      await queryClient.invalidateQueries({ queryKey: ["admin"] });
      setValue(null);
      setState({ busy: false, error: null, saved: true });
    } catch (error) {
      setState({ busy: false, error: errorText(error), saved: false });
    }
  }
  return (
    <form className={className} onSubmit={submit}>
      <label htmlFor={`${id}-name`}>{t("team.displayName")}</label>
      <input
        id={`${id}-name`}
        className="admin-input"
        value={value ?? current ?? ""}
        maxLength={80}
        autoComplete="name"
        onChange={(e) => setValue(e.target.value)}
      />
      <button type="submit" className="admin-button" disabled={state.busy}>
        {t("team.saveName")}
      </button>
      <p className="admin-hint">{t("team.displayNameHint")}</p>
      {state.error && <p role="alert">{state.error}</p>}
      {state.saved && <p role="status">{t("team.nameSaved")}</p>}
    </form>
  );
}
