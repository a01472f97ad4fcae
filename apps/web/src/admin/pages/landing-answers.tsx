import type { AdminLandingAnswer, UploadResult } from "@hikaya/contracts";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { ApiError } from "../../lib/api-client.ts";
import { errorText } from "../../lib/errors.ts";
import { currentLanguage, useTranslation } from "../../lib/i18n.ts";
import { Link } from "../../lib/router.tsx";
import { toast } from "../../lib/toast.tsx";
import {
  adminQueries,
  uploadTo,
  useAddLandingAnswer,
  useDeleteLandingAnswer,
  useReorderLandingAnswers,
  useUpdateLandingAnswer,
} from "../api.ts";
import { CharacterSelect, useCharacterChoice } from "../components/character-select.tsx";
import { DeleteDialog } from "../components/confirm-dialog.tsx";
import { MediaPreview } from "../components/media-preview.tsx";
import { QueryView } from "../components/page.tsx";
import { MoveButtons, RowButton } from "../components/row-actions.tsx";
import { fileName, StaleNotice, staleCurrent } from "../components/stale-notice.tsx";
import { TranscriptForm } from "../components/transcript-form.tsx";
import { UploadField } from "../components/upload-field.tsx";
import { move } from "../logic.ts";

/** The answers visitors hear after the landing video, in order: add, change, move up or down, delete (after asking). */
export function LandingAnswers() {
  const { t } = useTranslation("admin");
  const query = useQuery(adminQueries.landingAnswers());
  const add = useAddLandingAnswer();
  const choice = useCharacterChoice();
  const { characterId } = choice;
  return (
    <section className="admin-card admin-section" aria-labelledby="landing-title">
      <h2 id="landing-title">{t("media.landingTitle")}</h2>
      <p className="admin-muted">{t("media.landingIntro")}</p>
      <QueryView query={query}>{(answers) => <LandingList answers={answers} />}</QueryView>
      {choice.characters?.length === 0 ? (
        <p className="admin-muted">
          {t("questions.noCharacters")} <Link to="/admin/characters">{t("nav.characters")}</Link>
        </p>
      ) : (
        <div className="admin-subcard admin-row">
          <CharacterSelect choice={choice} />
          <UploadField<UploadResult>
            label={t("media.landingAudio")}
            kind="audio"
            url={uploadTo("audio")}
            onUploaded={async (r) => {
              try {
                await add.mutateAsync({ characterId, audio: r.path });
                toast.success(t("common.saved"));
              } catch (error) {
                toast.error(errorText(error));
              }
            }}
          />
        </div>
      )}
    </section>
  );
}

function LandingList({ answers }: { answers: AdminLandingAnswer[] }) {
  const { t } = useTranslation("admin");
  const client = useQueryClient();
  const reorder = useReorderLandingAnswers();
  const remove = useDeleteLandingAnswer();
  const update = useUpdateLandingAnswer();
  const [editing, setEditing] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<AdminLandingAnswer | null>(null);
  const ar = currentLanguage() === "ar";
  const nameOf = (a: AdminLandingAnswer) => (ar ? a.characterNameAr : a.characterNameEn);

  async function commit(next: AdminLandingAnswer[]) {
    const queryKey = adminQueries.landingAnswers().queryKey;
    // Show the new order at once; the server's answer (or a reload when someone else changed it) replaces it.
    client.setQueryData(
      queryKey,
      next.map((a, i) => ({ ...a, order: i + 1 })),
    );
    try {
      await reorder.mutateAsync({ ids: next.map((a) => a.id), expected: answers.map((a) => a.id) });
      toast.success(t("media.landingReordered"));
    } catch (error) {
      toast.error(error instanceof ApiError && error.code === "conflict" ? t("media.landingReorderConflict") : errorText(error));
      await client.invalidateQueries({ queryKey });
    }
  }

  return (
    <>
      <ol className="admin-answers" aria-label={t("media.landingTitle")}>
        {answers.length === 0 && <li className="admin-muted">{t("common.empty")}</li>}
        {answers.map((a, index) => {
          const label = t("media.landingName", { order: a.order, name: nameOf(a) });
          return (
            <li key={a.id} className="admin-answer" data-testid="landing-answer">
              <span className="admin-order ltr">{a.order}</span>
              <strong>{nameOf(a)}</strong>
              <MediaPreview src={a.audio} kind="audio" label={label} />
              <span className="admin-sortable__actions">
                <MoveButtons
                  name={label}
                  first={index === 0}
                  last={index === answers.length - 1}
                  disabled={reorder.isPending}
                  onMove={(delta) => void commit(move(answers, index, index + delta))}
                />
                <RowButton action={t("media.landingChange")} name={label} onClick={() => setEditing(a.id)} />
                <RowButton action={t("common.delete")} name={label} danger onClick={() => setDeleting(a)} />
              </span>
              {editing === a.id && <LandingAnswerForm key={`${a.id}-${a.version}`} answer={a} onDone={() => setEditing(null)} />}
              <TranscriptForm
                transcript={a.transcript}
                version={a.version}
                name={label}
                queryKey={adminQueries.landingAnswers().queryKey}
                save={(transcript) =>
                  update.mutateAsync({
                    id: a.id,
                    input: { characterId: a.characterId, audio: a.audio, transcript, version: a.version },
                  })
                }
              />
            </li>
          );
        })}
      </ol>
      <DeleteDialog
        item={deleting}
        title={t("media.landingDeleteTitle", { order: deleting?.order ?? "" })}
        body={<p>{t("media.landingDeleteBody", { name: deleting ? nameOf(deleting) : "" })}</p>}
        busy={remove.isPending}
        onClose={() => setDeleting(null)}
        onDelete={(id) => remove.mutateAsync(id)}
        deleted={t("media.landingDeleted")}
      />
    </>
  );
}

/** Another family member or another recording for one landing answer; a stale save shows what is stored now. */
function LandingAnswerForm({ answer, onDone }: { answer: AdminLandingAnswer; onDone: () => void }) {
  const { t } = useTranslation("admin");
  const save = useUpdateLandingAnswer();
  const choice = useCharacterChoice(answer.characterId);
  const [audio, setAudio] = useState(answer.audio);
  const [stale, setStale] = useState<AdminLandingAnswer | null>(null);
  const ar = currentLanguage() === "ar";

  async function submit() {
    try {
      await save.mutateAsync({
        id: answer.id,
        input: { characterId: choice.characterId, audio, version: answer.version },
      });
      toast.success(t("common.saved"));
      onDone();
    } catch (error) {
      const current = staleCurrent<AdminLandingAnswer>(error);
      if (current) return setStale(current);
      toast.error(errorText(error));
    }
  }

  return (
    <fieldset className="admin-subcard admin-fieldset">
      <legend>{t("media.landingEditTitle", { order: answer.order })}</legend>
      {stale && (
        <StaleNotice
          queryKey={["admin", "landing"]}
          rows={[
            { label: t("questions.character"), value: ar ? stale.characterNameAr : stale.characterNameEn },
            { label: t("media.landingAudio"), value: fileName(stale.audio) },
          ]}
        />
      )}
      <div className="admin-row">
        <CharacterSelect choice={choice} />
        <UploadField<UploadResult>
          label={t("media.landingNewAudio")}
          kind="audio"
          url={uploadTo("audio")}
          onUploaded={(r) => setAudio(r.path)}
        />
      </div>
      <div className="admin-actions">
        <button type="button" className="admin-button" onClick={onDone}>
          {t("common.cancel")}
        </button>
        <button
          type="button"
          className="admin-button admin-button--primary"
          disabled={save.isPending}
          onClick={() => void submit()}
        >
          {t("common.save")}
        </button>
      </div>
    </fieldset>
  );
}
