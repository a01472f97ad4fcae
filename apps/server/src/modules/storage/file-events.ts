import type { Bucket, UploadPurpose } from "@hikaya/contracts";

/**
 * "A file was stored and is now kept": what the modules that store files announce, and what other modules (media,
 * which processes videos and voices) listen to. Storage names the event and knows nothing of its listeners: app.ts
 * registers them at start, so the modules that store files never import the ones that react (issue 42: storage
 * importing media knotted 13 modules into one cycle).
 */
export type StoredFileUse =
  /** A family's recording of a story, its row written. */
  | { kind: "recording" }
  /** A voice message, its message committed. */
  | { kind: "voice-note" }
  /** A console upload, for what the console said it is for. */
  | { kind: "upload"; purpose: UploadPurpose }
  /** A story's private copy of a console upload (storage/story-media.ts), for one of its fields. */
  | { kind: "story-media"; field: string };

export interface StoredFile {
  bucket: Bucket;
  key: string;
  contentType: string;
  use: StoredFileUse;
}

export type StoredFileListener = (file: StoredFile) => Promise<void>;

/** One app's listeners (each app, and each test's app, has its own: a listener acts on its own app's database). */
export class FileEvents {
  readonly #listeners = new Set<StoredFileListener>();

  /** Adds a listener; returns what removes it. */
  onFileStored(listener: StoredFileListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Tells every listener, in turn, and waits for them: a job row exists before the upload is answered. */
  async fileStored(file: StoredFile): Promise<void> {
    for (const listener of this.#listeners) await listener(file);
  }
}
