import { PRERENDER_FILL_ATTRIBUTE, PRERENDER_SLOTS } from "@hikaya/contracts/constants";
import { useQuery } from "@tanstack/react-query";
import { lazy, Suspense, useState } from "react";
import { PageSpinner } from "../../components/spinner.tsx";
import { TitleBar } from "../../components/title-bar.tsx";
import { useTranslation } from "../../lib/i18n.ts";
import { useScripted } from "../../lib/scripted.ts";
import { contentsQuery } from "./api/info-api.ts";
import "./info.css";

const PdfViewer = lazy(() => import("./pdf-viewer.tsx"));

/**
 * The document's own link. Prerendered, it is there before any script with no address: the server fills in the
 * one the operator uploaded (server modules/web/prerender-fills.ts), so the document opens without scripts too.
 */
function DownloadLink({ kind, url }: { kind: "terms" | "privacy"; url?: string }) {
  const { t } = useTranslation("info");
  return (
    <a
      className="document-screen__download"
      href={url}
      target="_blank"
      rel="noopener"
      download
      {...{ [PRERENDER_FILL_ATTRIBUTE]: PRERENDER_SLOTS[kind] }}
    >
      <svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true">
        <path
          d="M12 4v11m0 0l-4.5-4.5M12 15l4.5-4.5M5 19h14"
          fill="none"
          stroke="currentColor"
          strokeWidth="2"
          strokeLinecap="round"
          strokeLinejoin="round"
        />
      </svg>
      {t("documents.download")}
    </a>
  );
}

/** Terms and conditions (/termandcondtion) and privacy policy (/privacypolicy): the PDF drawn page by page. */
export function DocumentPage({ kind }: { kind: "terms" | "privacy" }) {
  const { t } = useTranslation("info");
  const contents = useQuery(contentsQuery);
  const scripted = useScripted();
  const [failed, setFailed] = useState(false);
  const url = kind === "terms" ? contents.data?.termsAndCondition : contents.data?.privacyAndPolicy;
  const title = kind === "terms" ? t("documents.terms") : t("documents.privacy");

  return (
    <main className="screen info-screen document-screen">
      <TitleBar title={title} backTo="/" />
      <div className="screen__body document-screen__body">
        {contents.isPending ? (
          <>
            <DownloadLink kind={kind} />
            {/* Without scripts the link is the page: nothing is on its way. */}
            {scripted && <PageSpinner />}
          </>
        ) : !url ? (
          <p className="info-screen__intro">{t("documents.missing")}</p>
        ) : (
          <>
            <DownloadLink kind={kind} url={url} />
            {failed ? (
              <p className="info-screen__intro">{t("documents.failed")}</p>
            ) : (
              <Suspense fallback={<PageSpinner />}>
                <PdfViewer
                  url={url}
                  label={(page, pages) => t("documents.page", { page, pages, title })}
                  onError={() => setFailed(true)}
                />
              </Suspense>
            )}
          </>
        )}
      </div>
    </main>
  );
}

export const TermsPage = () => <DocumentPage kind="terms" />;
export const PrivacyPage = () => <DocumentPage kind="privacy" />;
