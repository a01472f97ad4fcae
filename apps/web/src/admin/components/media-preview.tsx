import { useTranslation } from "../../lib/i18n.ts";

/**
 * A video from outside the app's storage: a YouTube or Vimeo link, or a file on a video host listed in the settings
 * (uploaded files are this app's own `/storage/…` paths).
 */
export function isExternalVideo(url: string) {
  return url.startsWith("https://");
}

/** The embeddable address of a YouTube or Vimeo link, or null. */
export function embedUrl(url: string): string | null {
  try {
    const u = new URL(url);
    if (u.hostname.endsWith("youtu.be")) return `https://www.youtube-nocookie.com/embed/${u.pathname.slice(1)}`;
    if (u.hostname.endsWith("youtube.com")) {
      const id = u.searchParams.get("v") ?? u.pathname.split("/").pop();
      return id ? `https://www.youtube-nocookie.com/embed/${id}` : null;
    }
    if (u.hostname.endsWith("vimeo.com")) {
      const id = u.pathname.split("/").filter(Boolean).pop();
      return id ? `https://player.vimeo.com/video/${id}` : null;
    }
  } catch {
    return null;
  }
  return null;
}

/** A small player for whatever a path holds: video, audio, picture or PDF. */
export function MediaPreview({
  src,
  kind,
  label,
}: {
  src: string | null | undefined;
  kind: "video" | "audio" | "image" | "pdf";
  label: string;
}) {
  const { t } = useTranslation("admin");
  if (!src) return <span className="admin-muted">{t("common.none")}</span>;
  // YouTube and Vimeo play in their embeds; a listed host's file plays like an uploaded one.
  const embed = kind === "video" && isExternalVideo(src) ? embedUrl(src) : null;
  if (embed)
    return (
      <iframe
        className="admin-preview admin-preview--video"
        src={embed}
        title={label}
        allow="encrypted-media; picture-in-picture"
        allowFullScreen
      />
    );
  if (kind === "video")
    return <video className="admin-preview admin-preview--video" src={src} controls preload="metadata" aria-label={label} />;
  if (kind === "audio")
    return <audio className="admin-preview admin-preview--audio" src={src} controls preload="none" aria-label={label} />;
  if (kind === "image") return <img className="admin-preview admin-preview--image" src={src} alt={label} />;
  return (
    <a href={src} target="_blank" rel="noreferrer" className="admin-link">
      {t("common.openPdf")}
    </a>
  );
}
