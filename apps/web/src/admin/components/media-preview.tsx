import { useTranslation } from "../../lib/i18n.ts";

export function isExternalVideo(url: string) {
  return /^https:\/\/(www\.|m\.)?(youtube\.com|youtu\.be|vimeo\.com|player\.vimeo\.com)\//.test(url);
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
  if (kind === "video" && isExternalVideo(src)) {
    const embed = embedUrl(src);
    return embed ? (
      <iframe
        className="admin-preview admin-preview--video"
        src={embed}
        title={label}
        allow="encrypted-media; picture-in-picture"
        allowFullScreen
      />
    ) : (
      <a href={src} target="_blank" rel="noreferrer">
        {src}
      </a>
    );
  }
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
