import * as pdfjs from "pdfjs-dist";
import workerUrl from "pdfjs-dist/build/pdf.worker.min.mjs?url";
import { type CSSProperties, useEffect, useRef, useState } from "react";
import { useTranslation } from "../../lib/i18n.ts";

pdfjs.GlobalWorkerOptions.workerSrc = workerUrl;

type PdfDocument = Awaited<ReturnType<typeof pdfjs.getDocument>["promise"]>;
type RenderTask = ReturnType<Awaited<ReturnType<PdfDocument["getPage"]>>["render"]>;

const pageNumbers = (count: number) => Array.from({ length: count }, (_, i) => i + 1);

/** Zoom steps, as multiples of the screen's width: an A4 page fitted to a phone has text of about 10 px. */
export const ZOOMS = [1, 1.5, 2, 2.5, 3] as const;
/** A canvas larger than this many pixels is drawn at a lower density rather than risk the phone's memory. */
const MAX_CANVAS_PIXELS = 16_000_000;

function ZoomIcon({ plus }: { plus: boolean }) {
  return (
    <svg viewBox="0 0 24 24" width="22" height="22" aria-hidden="true">
      <path
        d={plus ? "M5 12h14M12 5v14" : "M5 12h14"}
        fill="none"
        stroke="currentColor"
        strokeWidth="2.5"
        strokeLinecap="round"
      />
    </svg>
  );
}

/**
 * Renders every page of a PDF into canvases (phones often show nothing for an iframe of a PDF), as wide as the
 * screen times the zoom the person chose with the − and + buttons; past 100% the pages scroll sideways. Each zoom
 * draws the pages again at that scale and the device's pixel ratio, so text stays sharp rather than a stretched
 * picture. This module, and pdf.js with it, is its own chunk loaded only by the terms and privacy screens.
 */
export default function PdfViewer({
  url,
  label,
  onError,
}: {
  url: string;
  label: (page: number, pages: number) => string;
  onError(error: unknown): void;
}) {
  const { t } = useTranslation("info");
  const container = useRef<HTMLElement>(null);
  const [doc, setDoc] = useState<PdfDocument | null>(null);
  const [rendered, setRendered] = useState(false);
  const [step, setStep] = useState(0);
  const zoom = ZOOMS[step] ?? 1;
  const report = useRef(onError);
  report.current = onError;

  useEffect(() => {
    let cancelled = false;
    const task = pdfjs.getDocument({ url });
    task.promise.then(
      (loaded) => {
        if (!cancelled) setDoc(loaded);
      },
      (error) => {
        if (!cancelled) report.current(error);
      },
    );
    return () => {
      cancelled = true;
      void task.destroy();
    };
  }, [url]);

  // Runs once the canvases for `doc` are on the page, and again at each zoom.
  useEffect(() => {
    const root = container.current;
    if (!doc || !root) return;
    let cancelled = false;
    let current: RenderTask | null = null;
    (async () => {
      const width = (root.clientWidth || 360) * zoom;
      for (let n = 1; n <= doc.numPages && !cancelled; n++) {
        const page = await doc.getPage(n);
        const base = page.getViewport({ scale: 1 });
        const cssScale = width / base.width;
        const pixels = base.width * base.height * cssScale * cssScale;
        const ratio = Math.min(window.devicePixelRatio || 1, 3, Math.sqrt(MAX_CANVAS_PIXELS / pixels));
        const viewport = page.getViewport({ scale: cssScale * ratio });
        const canvas = root.querySelector<HTMLCanvasElement>(`canvas[data-page="${n}"]`);
        if (!canvas || cancelled) continue;
        canvas.width = Math.floor(viewport.width);
        canvas.height = Math.floor(viewport.height);
        canvas.style.aspectRatio = `${viewport.width} / ${viewport.height}`;
        current = page.render({ canvas, viewport });
        await current.promise;
        current = null;
        if (n === 1 && !cancelled) setRendered(true);
      }
    })().catch((error) => {
      // A zoom while a page draws cancels that drawing: not an error.
      if (!cancelled) report.current(error);
    });
    return () => {
      cancelled = true;
      // pdf.js refuses a second drawing on a canvas still being drawn.
      current?.cancel();
    };
  }, [doc, zoom]);

  const rezoom = (next: number) => {
    const root = container.current;
    const to = ZOOMS[next] ?? 1;
    const from = zoom;
    setStep(next);
    if (!root) return;
    // Keep the same part of the document in view: the pages grow or shrink in both directions.
    const top = root.getBoundingClientRect().top + window.scrollY;
    const down = window.scrollY - top;
    const left = root.scrollLeft;
    requestAnimationFrame(() => {
      if (down > 0) window.scrollTo({ top: top + (down * to) / from });
      root.scrollLeft = (left * to) / from;
    });
  };

  const pages = doc?.numPages ?? 0;
  const percent = Math.round(zoom * 100);
  return (
    // dir="ltr": a canvas draws text in its element's direction, and pdf.js places every glyph itself. The zoom
    // reads − 100% + in both languages, as a scale does.
    <div className="pdf-viewer" dir="ltr" data-rendered={rendered || undefined}>
      {/* Focusable, so a keyboard can scroll the zoomed pages sideways (the canvases take no focus). */}
      <section
        className="pdf-viewer__pages"
        ref={container}
        style={{ "--pdf-zoom": zoom } as CSSProperties}
        aria-label={t("documents.pages")}
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard (WCAG 2.1.1).
        tabIndex={0}
      >
        {pageNumbers(pages).map((n) => (
          <canvas key={n} data-page={n} className="pdf-viewer__page" role="img" aria-label={label(n, pages)} />
        ))}
      </section>
      {/* After the pages and sticky to the screen's bottom: at hand wherever the person has scrolled. */}
      <fieldset className="pdf-viewer__zoom" aria-label={t("documents.zoom")}>
        <button type="button" onClick={() => rezoom(step - 1)} disabled={step === 0} aria-label={t("documents.zoomOut")}>
          <ZoomIcon plus={false} />
        </button>
        <output aria-live="polite" dir="auto">
          {t("documents.zoomLevel", { percent })}
        </output>
        <button
          type="button"
          onClick={() => rezoom(step + 1)}
          disabled={step === ZOOMS.length - 1}
          aria-label={t("documents.zoomIn")}
        >
          <ZoomIcon plus />
        </button>
      </fieldset>
    </div>
  );
}
