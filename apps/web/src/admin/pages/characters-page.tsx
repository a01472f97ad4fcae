import type { AdminCharacter, UploadResult } from "@hikaya/contracts";
import { useQuery } from "@tanstack/react-query";
import { type FormEvent, useId, useState } from "react";
import { SubmitButton } from "../../components/submit-button.tsx";
import { errorText } from "../../lib/errors.ts";
import { useTranslation } from "../../lib/i18n.ts";
import { toast } from "../../lib/toast.tsx";
import { adminQueries, uploadTo, useDeleteCharacter, useSaveCharacter } from "../api.ts";
import { AdminField } from "../components/admin-field.tsx";
import { DeleteDialog } from "../components/confirm-dialog.tsx";
import { MediaPreview } from "../components/media-preview.tsx";
import { PageHeader, QueryView } from "../components/page.tsx";
import { RowButton } from "../components/row-actions.tsx";
import { fileName, StaleNotice, staleCurrent } from "../components/stale-notice.tsx";
import { UploadField } from "../components/upload-field.tsx";

/** Family members: names in both languages, a picture and the audio of the character screens. */
export function CharactersPage() {
  const { t } = useTranslation("admin");
  const query = useQuery(adminQueries.characters());
  // The id, not the record: after a stale save reloads the list, the form opens on the stored values.
  const [editing, setEditing] = useState<string | null>(null);
  const editingCharacter = query.data?.find((c) => c.id === editing);
  const [deleting, setDeleting] = useState<AdminCharacter | null>(null);
  const remove = useDeleteCharacter();
  return (
    <>
      <PageHeader
        title={t("characters.title")}
        subtitle={t("characters.intro")}
        actions={
          <button type="button" className="admin-button admin-button--primary" onClick={() => setEditing("new")}>
            {t("characters.new")}
          </button>
        }
      />
      {(editing === "new" || editingCharacter) && (
        <CharacterForm
          key={editingCharacter ? `${editingCharacter.id}-${editingCharacter.version}` : "new"}
          character={editingCharacter}
          onDone={() => setEditing(null)}
        />
      )}
      <QueryView query={query}>
        {(characters) =>
          characters.length === 0 ? (
            <p className="admin-card admin-muted">{t("characters.empty")}</p>
          ) : (
            <ul className="admin-cards">
              {characters.map((c) => (
                <li key={c.id} className="admin-card admin-person" data-testid="character">
                  <MediaPreview src={c.thumbnail} kind="image" label={c.nameEn} />
                  <div className="admin-person__text">
                    <strong lang="en" dir="ltr">
                      {c.nameEn}
                    </strong>
                    <span lang="ar" dir="rtl">
                      {c.nameAr}
                    </span>
                    <span className="admin-muted">{t("characters.answers", { count: c.answerCount })}</span>
                  </div>
                  <MediaPreview src={c.audio} kind="audio" label={c.nameEn} />
                  <div className="admin-actions">
                    <RowButton action={t("common.edit")} name={c.nameEn} onClick={() => setEditing(c.id)} />
                    <RowButton action={t("common.delete")} name={c.nameEn} danger onClick={() => setDeleting(c)} />
                  </div>
                </li>
              ))}
            </ul>
          )
        }
      </QueryView>
      <DeleteDialog
        item={deleting}
        title={t("characters.deleteTitle", { name: deleting?.nameEn ?? "" })}
        body={<p>{t("characters.deleteBody")}</p>}
        busy={remove.isPending}
        onClose={() => setDeleting(null)}
        onDelete={(id) => remove.mutateAsync(id)}
        deleted={t("characters.deleted")}
        failed={(c) => (c.answerCount > 0 ? t("characters.inUse") : "")}
      />
    </>
  );
}

function CharacterForm({ character, onDone }: { character?: AdminCharacter; onDone: () => void }) {
  const { t } = useTranslation("admin");
  const save = useSaveCharacter();
  const id = useId();
  const [nameEn, setNameEn] = useState(character?.nameEn ?? "");
  const [nameAr, setNameAr] = useState(character?.nameAr ?? "");
  const [thumbnail, setThumbnail] = useState<string | null>(character?.thumbnail ?? null);
  const [audio, setAudio] = useState<string | null>(character?.audio ?? null);
  const [stale, setStale] = useState<AdminCharacter | null>(null);

  async function submit(event: FormEvent) {
    event.preventDefault();
    try {
      await save.mutateAsync({
        id: character?.id,
        input: { nameEn, nameAr, thumbnail, audio, ...(character ? { version: character.version } : {}) },
      });
      toast.success(t("common.saved"));
      onDone();
    } catch (error) {
      const current = staleCurrent<AdminCharacter>(error);
      if (current) return setStale(current);
      toast.error(errorText(error));
    }
  }

  return (
    <form
      className="admin-card admin-form"
      onSubmit={submit}
      aria-label={character ? t("characters.editTitle") : t("characters.new")}
    >
      <h2>{character ? t("characters.editTitle") : t("characters.new")}</h2>
      {stale && (
        <StaleNotice
          queryKey={["admin", "characters"]}
          rows={[
            { label: t("characters.nameEn"), value: stale.nameEn },
            { label: t("characters.nameAr"), value: stale.nameAr },
            { label: t("characters.thumbnail"), value: fileName(stale.thumbnail) },
            { label: t("characters.audio"), value: fileName(stale.audio) },
          ]}
        />
      )}
      <div className="admin-grid-2">
        <AdminField
          id={`${id}-en`}
          label={t("characters.nameEn")}
          dir="ltr"
          required
          maxLength={120}
          value={nameEn}
          onChange={(e) => setNameEn(e.target.value)}
        />
        <AdminField
          id={`${id}-ar`}
          label={t("characters.nameAr")}
          dir="rtl"
          required
          maxLength={120}
          value={nameAr}
          onChange={(e) => setNameAr(e.target.value)}
        />
      </div>
      <div className="admin-grid-2">
        <div className="admin-subcard">
          <MediaPreview src={thumbnail} kind="image" label={t("characters.thumbnail")} />
          <UploadField<UploadResult>
            label={t("characters.thumbnail")}
            kind="image"
            url={uploadTo("image")}
            onUploaded={(r) => setThumbnail(r.path)}
          />
        </div>
        <div className="admin-subcard">
          <MediaPreview src={audio} kind="audio" label={t("characters.audio")} />
          <UploadField<UploadResult>
            label={t("characters.audio")}
            kind="audio"
            url={uploadTo("audio")}
            onUploaded={(r) => setAudio(r.path)}
          />
        </div>
      </div>
      <div className="admin-actions">
        <button type="button" className="admin-button" onClick={onDone}>
          {t("common.cancel")}
        </button>
        <SubmitButton busy={save.isPending}>{t("common.save")}</SubmitButton>
      </div>
    </form>
  );
}
