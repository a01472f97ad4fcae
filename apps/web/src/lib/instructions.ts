import type { InstructionLocation } from "@hikaya/contracts";
import { useEffect, useState } from "react";
import { api } from "./api-client.ts";
import { type Language, useLanguage } from "./i18n.ts";

/**
 * Instruction videos load by location name, in the app's language (`lang`: the server gives the other
 * language's video when there is none); failures are silent (spec section 8). A few lines of
 * cache instead of TanStack Query: the landing page shows one, and the first page should not carry the
 * query library (issue 15). An answer is reused for 5 minutes; screens asking at once share one request.
 */
const FRESH_MS = 5 * 60_000;
const answers = new Map<string, { media: string | null; at: number }>();
const pending = new Map<string, Promise<void>>();

function fetchInstruction(key: string, location: InstructionLocation, language: Language): Promise<void> {
  let request = pending.get(key);
  if (!request) {
    request = api<{ media: string | null }>(`/instruction?location=${encodeURIComponent(location)}&lang=${language}`)
      .then(
        ({ media }) => void answers.set(key, { media, at: Date.now() }),
        () => {},
      )
      .finally(() => pending.delete(key));
    pending.set(key, request);
  }
  return request;
}

export function useInstruction(location: InstructionLocation): string | null {
  const language = useLanguage();
  const key = `${location}|${language}`;
  const [media, setMedia] = useState(() => answers.get(key)?.media ?? null);
  useEffect(() => {
    const known = answers.get(key);
    setMedia(known?.media ?? null);
    if (known && Date.now() - known.at < FRESH_MS) return;
    let live = true;
    void fetchInstruction(key, location, language).then(() => {
      if (live) setMedia(answers.get(key)?.media ?? null);
    });
    return () => {
      live = false;
    };
  }, [key, location, language]);
  return media;
}
