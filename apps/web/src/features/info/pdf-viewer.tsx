import * as pdfjs from "pdfjs-dist";
import workerUrl from "pdfjs-dist/build/pdf.worker.min.mjs?url";
import { useEffect, useRef, useState } from "react";

pdfjs.GlobalWorkerOptions.workerSrc = workerUrl;

type PdfDocument = Awaited<ReturnType<typeof pdfjs.getDocument>["promise"]>;

const pageNumbers = (count: number) => Array.from({ length: count }, (_, i) => i + 1);

/**
 * Renders every page of a PDF into canvases as wide as the screen (phones often show nothing for an
 * iframe of a PDF). Pages render at the device's pixel ratio so text stays sharp. This module, and
 * pdf.js with it, is its own chunk loaded only by the terms and privacy screens.
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
  const container = useRef<HTMLDivElement>(null);
  const [doc, setDoc] = useState<PdfDocument | null>(null);
  const [rendered, setRendered] = useState(false);
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

  // Runs once the canvases for `doc` are on the page.
  useEffect(() => {
    const root = container.current;
    if (!doc || !root) return;
    let cancelled = false;
    (async () => {
      const width = root.clientWidth || 360;
      const ratio = Math.min(window.devicePixelRatio || 1, 3);
      for (let n = 1; n <= doc.numPages && !cancelled; n++) {
        const page = await doc.getPage(n);
        const base = page.getViewport({ scale: 1 });
        const viewport = page.getViewport({ scale: (width / base.width) * ratio });
        const canvas = root.querySelector<HTMLCanvasElement>(`canvas[data-page="${n}"]`);
        if (!canvas || cancelled) continue;
        canvas.width = Math.floor(viewport.width);
        canvas.height = Math.floor(viewport.height);
        canvas.style.aspectRatio = `${viewport.width} / ${viewport.height}`;
        await page.render({ canvas, viewport }).promise;
        if (n === 1 && !cancelled) setRendered(true);
      }
    })().catch((error) => {
      if (!cancelled) report.current(error);
    });
    return () => {
      cancelled = true;
    };
  }, [doc]);

  const pages = doc?.numPages ?? 0;
  return (
    // dir="ltr": a canvas draws text in its element's direction, and pdf.js places every glyph itself.
    <div className="pdf-viewer" dir="ltr" ref={container} data-rendered={rendered || undefined}>
      {pageNumbers(pages).map((n) => (
        <canvas key={n} data-page={n} className="pdf-viewer__page" role="img" aria-label={label(n, pages)} />
      ))}
    </div>
  );
}
