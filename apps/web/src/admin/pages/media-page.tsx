import type { AdminMedia, DocumentKey, InstructionLocation, UploadResult } from "@hikaya/contracts";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { errorText } from "../../lib/errors.ts";
import { formatDateTime } from "../../lib/format.ts";
import { useTranslation } from "../../lib/i18n.ts";
import { toast } from "../../lib/toast.tsx";
import { adminQueries, uploadTo, useSetDocument, useSetInstruction, useSetInstructionArabicMedia } from "../api.ts";
import { ArabicMediaField } from "../components/arabic-media.tsx";
import { MediaPreview } from "../components/media-preview.tsx";
import { PageHeader, QueryView } from "../components/page.tsx";
import { fileName, StaleNotice, staleCurrent } from "../components/stale-notice.tsx";
import { TranscriptForm } from "../components/transcript-form.tsx";
import { UploadField } from "../components/upload-field.tsx";
import { LandingAnswers } from "./landing-answers.tsx";

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

function Instructions() {
  const { t, i18n } = useTranslation("admin");
  const query = useQuery(adminQueries.media());
  const set = useSetInstruction();
  const setArabic = useSetInstructionArabicMedia();
  const [stale, setStale] = useState<{ location: string; current: AdminMedia["instructions"][number] } | null>(null);
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
                  {stale?.location === ins.location && (
                    <StaleNotice
                      queryKey={["admin", "media"]}
                      rows={[
                        { label: t("media.staleFile"), value: fileName(stale.current.media) },
                        { label: t("media.lastChanged"), value: formatDateTime(stale.current.updatedAt, i18n.language) },
                      ]}
                    />
                  )}
                  <UploadField<UploadResult>
                    label={t("media.replaceVideo", { name })}
                    kind="video"
                    url={uploadTo("instruction")}
                    onUploaded={async (r) => {
                      try {
                        await set.mutateAsync({
                          location: ins.location as InstructionLocation,
                          input: { media: r.path, version: ins.version },
                        });
                        setStale(null);
                        toast.success(t("common.saved"));
                      } catch (error) {
                        const current = staleCurrent<AdminMedia["instructions"][number]>(error);
                        if (current) return setStale({ location: ins.location, current });
                        toast.error(errorText(error));
                      }
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
  const [stale, setStale] = useState<{ key: string; current: AdminMedia["documents"][number] } | null>(null);
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
                  {stale?.key === doc.key && (
                    <StaleNotice
                      queryKey={["admin", "media"]}
                      rows={[
                        { label: t("media.staleFile"), value: fileName(stale.current.path) },
                        { label: t("media.lastChanged"), value: formatDateTime(stale.current.updatedAt, i18n.language) },
                      ]}
                    />
                  )}
                  <UploadField<UploadResult>
                    label={t("media.replaceFile", { name })}
                    kind={isAudio ? "audio" : "pdf"}
                    url={uploadTo(isAudio ? "audio" : "document")}
                    onUploaded={async (r) => {
                      try {
                        await set.mutateAsync({ key: doc.key as DocumentKey, input: { path: r.path, version: doc.version } });
                        setStale(null);
                        toast.success(t("common.saved"));
                      } catch (error) {
                        const current = staleCurrent<AdminMedia["documents"][number]>(error);
                        if (current) return setStale({ key: doc.key, current });
                        toast.error(errorText(error));
                      }
                    }}
                  />
                  {isAudio && doc.path && (
                    <TranscriptForm
                      transcript={doc.transcript}
                      version={doc.version}
                      name={name}
                      queryKey={adminQueries.media().queryKey}
                      save={(transcript) =>
                        set.mutateAsync({
                          key: doc.key as DocumentKey,
                          input: { path: doc.path as string, transcript, version: doc.version },
                        })
                      }
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
