import type { DocumentKey, InstructionLocation, UploadResult } from "@hikaya/contracts";
import { useQuery } from "@tanstack/react-query";
import { Link } from "react-router";
import { errorText } from "../../lib/errors.ts";
import { formatDateTime } from "../../lib/format.ts";
import { currentLanguage, useTranslation } from "../../lib/i18n.ts";
import { toast } from "../../lib/toast.tsx";
import {
  adminQueries,
  uploadTo,
  useAddLandingAnswer,
  useDeleteLandingAnswer,
  useSetDocument,
  useSetInstruction,
  useSetInstructionArabicMedia,
} from "../api.ts";
import { ArabicMediaField } from "../components/arabic-media.tsx";
import { CharacterSelect, useCharacterChoice } from "../components/character-select.tsx";
import { MediaPreview } from "../components/media-preview.tsx";
import { PageHeader, QueryView } from "../components/page.tsx";
import { UploadField } from "../components/upload-field.tsx";

/** Landing answers, an instruction video per location, the terms and privacy PDFs and the greeting audio. */
export function MediaPage() {
  const { t } = useTranslation("admin");
  return (
    <>
      <PageHeader title={t("media.title")} subtitle={t("media.intro")} />
      <LandingAnswers />
      <Instructions />
      <Documents />
    </>
  );
}

function LandingAnswers() {
  const { t } = useTranslation("admin");
  const query = useQuery(adminQueries.landingAnswers());
  const add = useAddLandingAnswer();
  const remove = useDeleteLandingAnswer();
  const choice = useCharacterChoice();
  const { characterId } = choice;
  const ar = currentLanguage() === "ar";
  return (
    <section className="admin-card admin-section" aria-labelledby="landing-title">
      <h2 id="landing-title">{t("media.landingTitle")}</h2>
      <p className="admin-muted">{t("media.landingIntro")}</p>
      <QueryView query={query}>
        {(answers) => (
          <ul className="admin-answers">
            {answers.length === 0 && <li className="admin-muted">{t("common.empty")}</li>}
            {answers.map((a) => {
              const who = ar ? a.characterNameAr : a.characterNameEn;
              return (
                <li key={a.id} className="admin-answer">
                  <span className="admin-order ltr">{a.order}</span>
                  <strong>{who}</strong>
                  <MediaPreview src={a.audio} kind="audio" label={who} />
                  <button
                    type="button"
                    className="admin-link-button admin-danger-text"
                    onClick={async () => {
                      try {
                        await remove.mutateAsync(a.id);
                      } catch (error) {
                        toast.error(errorText(error));
                      }
                    }}
                  >
                    {t("common.delete")}
                  </button>
                </li>
              );
            })}
          </ul>
        )}
      </QueryView>
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

function Instructions() {
  const { t, i18n } = useTranslation("admin");
  const query = useQuery(adminQueries.media());
  const set = useSetInstruction();
  const setArabic = useSetInstructionArabicMedia();
  return (
    <section className="admin-card admin-section" aria-labelledby="instructions-title">
      <h2 id="instructions-title">{t("media.instructionsTitle")}</h2>
      <QueryView query={query}>
        {(media) => (
          <ul className="admin-media-list">
            {media.instructions.map((ins) => {
              const name = t(`media.locations.${ins.location}` as "media.locations.Add Website", { defaultValue: ins.location });
              return (
                <li key={ins.location} className="admin-media-item" data-testid="instruction">
                  <h3>{name}</h3>
                  <MediaPreview src={ins.media} kind="video" label={name} />
                  <span className="admin-hint">{t("media.updated", { when: formatDateTime(ins.updatedAt, i18n.language) })}</span>
                  <UploadField<UploadResult>
                    label={t("media.replaceVideo", { name })}
                    kind="video"
                    url={uploadTo("instruction")}
                    onUploaded={async (r) => {
                      await set.mutateAsync({ location: ins.location as InstructionLocation, media: r.path });
                      toast.success(t("common.saved"));
                    }}
                  />
                  {/* The Arabic video needs the English one, which every family falls back to. */}
                  {ins.media && (
                    <ArabicMediaField
                      label={t("arabicMedia.videoOf", { name })}
                      kind="video"
                      current={ins.mediaAr}
                      fileLabel={t("arabicMedia.fileFor", { name })}
                      upload={{
                        purpose: "instruction",
                        save: (path) => setArabic.mutateAsync({ location: ins.location as InstructionLocation, media: path }),
                      }}
                      remove={() => setArabic.mutateAsync({ location: ins.location as InstructionLocation, media: null })}
                    />
                  )}
                </li>
              );
            })}
          </ul>
        )}
      </QueryView>
    </section>
  );
}

function Documents() {
  const { t, i18n } = useTranslation("admin");
  const query = useQuery(adminQueries.media());
  const set = useSetDocument();
  return (
    <section className="admin-card admin-section" aria-labelledby="documents-title">
      <h2 id="documents-title">{t("media.documentsTitle")}</h2>
      <QueryView query={query}>
        {(media) => (
          <ul className="admin-media-list">
            {media.documents.map((doc) => {
              const name = t(`media.documents.${doc.key}`);
              const isAudio = doc.key === "greetingAudio";
              return (
                <li key={doc.key} className="admin-media-item">
                  <h3>{name}</h3>
                  <MediaPreview src={doc.path} kind={isAudio ? "audio" : "pdf"} label={name} />
                  <span className="admin-hint">{t("media.updated", { when: formatDateTime(doc.updatedAt, i18n.language) })}</span>
                  <UploadField<UploadResult>
                    label={t("media.replaceFile", { name })}
                    kind={isAudio ? "audio" : "pdf"}
                    url={uploadTo(isAudio ? "audio" : "document")}
                    onUploaded={async (r) => {
                      await set.mutateAsync({ key: doc.key as DocumentKey, path: r.path });
                      toast.success(t("common.saved"));
                    }}
                  />
                </li>
              );
            })}
          </ul>
        )}
      </QueryView>
    </section>
  );
}
