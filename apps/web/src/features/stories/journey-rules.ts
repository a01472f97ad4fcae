/** The journey's rules (spec sections 4 and 9), kept free of React so they are tested on their own. */
import {
  RECORDING_INSTEAD_OF_ADD_WEBSITE_FROM_INDEX,
  SAVE_REQUIRES_UPLOAD_ABOVE_INDEX,
  SECOND_RECORDING_SCREEN_ABOVE_INDEX,
} from "@hikaya/contracts";

/** The card look of spec section 4. */
export type CardLook = "active" | "watched" | "locked" | "other";
export function cardLook(status: string | undefined): CardLook {
  if (status === "Active") return "active";
  if (status === "Deleted") return "watched";
  if (status === "Locked") return "locked";
  return "other";
}

/** After the final question: index 2 or more records thoughts, below that adds the website. */
export function afterQuestions(storyId: string, index: number): string {
  return index >= RECORDING_INSTEAD_OF_ADD_WEBSITE_FROM_INDEX
    ? `/start-recording/${storyId}/${index}`
    : `/add-website/${storyId}/${index}`;
}

/** Above index 2 the save must reach the server ("Save & Go to story"); below it reads "Go To Stories". */
export function saveRequiresUpload(index: number): boolean {
  return index > SAVE_REQUIRES_UPLOAD_ABOVE_INDEX;
}

/** After a saved recording: above index 16 the second recording screen, else the stories. */
export function afterRecording(storyId: string, index: number): string {
  return index > SECOND_RECORDING_SCREEN_ABOVE_INDEX ? `/start-recording2/${storyId}/${index}` : "/";
}

/** A route index: a whole number from 1 up to the last story's order; anything else is null. */
export function parseIndex(raw: string | undefined, orders: number[] | undefined): number | null {
  if (!raw || !/^\d{1,4}$/.test(raw)) return null;
  const n = Number(raw);
  const max = orders ? Math.max(1, ...orders) : Number.POSITIVE_INFINITY;
  return n >= 1 && n <= max ? n : null;
}

/** The recorder's mm:ss counter. */
export function formatSeconds(total: number): string {
  const m = Math.floor(total / 60);
  const s = Math.floor(total % 60);
  return `${String(m).padStart(2, "0")}:${String(s).padStart(2, "0")}`;
}
