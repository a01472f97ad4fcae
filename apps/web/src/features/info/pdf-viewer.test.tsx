// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { initI18n, loadNamespaces, setLanguage } from "../../lib/i18n.ts";
import en from "../../locales/en/info.json";
import PdfViewer from "./pdf-viewer.tsx";

// pdf.js itself needs a worker and a real canvas; the viewer's part is the scale it asks pages to be drawn at.
const renders: { page: number; scale: number }[] = [];
vi.mock("pdfjs-dist/build/pdf.worker.min.mjs?url", () => ({ default: "/pdf.worker.js" }));
vi.mock("pdfjs-dist", () => {
  // An A4 page in PDF points.
  const page = (n: number) => ({
    getViewport: ({ scale }: { scale: number }) => ({ width: 595 * scale, height: 842 * scale }),
    render: ({ viewport }: { viewport: { width: number } }) => {
      renders.push({ page: n, scale: viewport.width / 595 });
      return { promise: Promise.resolve(), cancel: () => {} };
    },
  });
  const doc = { numPages: 2, getPage: async (n: number) => page(n) };
  return {
    GlobalWorkerOptions: {},
    getDocument: () => ({ promise: Promise.resolve(doc), destroy: async () => {} }),
  };
});

beforeAll(async () => {
  await initI18n();
  await loadNamespaces("info");
  await setLanguage("en");
});
afterEach(() => {
  cleanup();
  renders.length = 0;
});

const settle = () => act(async () => new Promise((resolve) => setTimeout(resolve, 0)));

describe("the PDF viewer on a phone", () => {
  it("draws the pages again, larger, at each zoom, up to 300 %", async () => {
    // A phone: 390 px wide, no high-density screen, so the numbers read plainly.
    vi.spyOn(HTMLElement.prototype, "clientWidth", "get").mockReturnValue(390);
    vi.stubGlobal("devicePixelRatio", 1);
    render(<PdfViewer url="/terms.pdf" label={(page, pages) => `page ${page} of ${pages}`} onError={() => {}} />);
    await settle();
    const first = screen.getByRole("img", { name: "page 1 of 2" }) as HTMLCanvasElement;
    expect(first.width).toBe(390);
    expect(screen.getByText("100%")).toBeTruthy();

    renders.length = 0;
    fireEvent.click(screen.getByRole("button", { name: en.documents.zoomIn }));
    await settle();
    // Drawn again at 150 %, both pages, not the 390 px picture stretched.
    expect(renders.map((r) => r.page)).toEqual([1, 2]);
    expect(renders[0]?.scale).toBeCloseTo((390 * 1.5) / 595);
    expect(first.width).toBe(585);
    expect(screen.getByText("150%")).toBeTruthy();

    for (let i = 0; i < 5; i++) fireEvent.click(screen.getByRole("button", { name: en.documents.zoomIn }));
    await settle();
    expect(first.width).toBe(1170);
    expect((screen.getByRole("button", { name: en.documents.zoomIn }) as HTMLButtonElement).disabled).toBe(true);
    fireEvent.click(screen.getByRole("button", { name: en.documents.zoomOut }));
    await settle();
    expect(first.width).toBe(975);
    vi.unstubAllGlobals();
  });
});
