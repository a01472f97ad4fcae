/**
 * External story videos play in their privacy-respecting embeds: YouTube through youtube-nocookie.com
 * and Vimeo with dnt=1. The end of the video is heard through each player's postMessage protocol, so
 * no third-party script is loaded into the app.
 */
export type Embed = { kind: "youtube" | "vimeo"; src: string; origin: string } | { kind: "file"; src: string };

export function embedFor(url: string, pageOrigin: string): Embed {
  let parsed: URL;
  try {
    parsed = new URL(url, pageOrigin);
  } catch {
    return { kind: "file", src: url };
  }
  const host = parsed.hostname.replace(/^www\.|^m\./, "");
  let youtubeId: string | null = null;
  if (host === "youtu.be") youtubeId = parsed.pathname.slice(1).split("/")[0] ?? null;
  else if (host === "youtube.com" || host === "youtube-nocookie.com") {
    youtubeId = parsed.searchParams.get("v") ?? parsed.pathname.match(/^\/(?:embed|shorts|live)\/([\w-]+)/)?.[1] ?? null;
  }
  if (youtubeId && /^[\w-]{6,}$/.test(youtubeId)) {
    const q = new URLSearchParams({ autoplay: "1", playsinline: "1", enablejsapi: "1", rel: "0", origin: pageOrigin });
    return {
      kind: "youtube",
      src: `https://www.youtube-nocookie.com/embed/${youtubeId}?${q}`,
      origin: "https://www.youtube-nocookie.com",
    };
  }
  if (host === "vimeo.com" || host === "player.vimeo.com") {
    const id = parsed.pathname.match(/(\d{5,})/)?.[1];
    if (id) {
      const q = new URLSearchParams({ autoplay: "1", playsinline: "1", dnt: "1" });
      const hash = parsed.searchParams.get("h") ?? parsed.pathname.match(/\/\d+\/([0-9a-f]{6,})/)?.[1];
      if (hash) q.set("h", hash);
      return { kind: "vimeo", src: `https://player.vimeo.com/video/${id}?${q}`, origin: "https://player.vimeo.com" };
    }
  }
  return { kind: "file", src: parsed.origin === pageOrigin ? parsed.pathname + parsed.search : parsed.href };
}

function parse(data: unknown): Record<string, unknown> | null {
  if (typeof data === "object" && data) return data as Record<string, unknown>;
  if (typeof data !== "string") return null;
  try {
    const v = JSON.parse(data);
    return typeof v === "object" && v ? v : null;
  } catch {
    return null;
  }
}

/** Starts listening to an embedded player; calls onEnded once when its video finishes. */
export function listenForEmbedEnd(frame: HTMLIFrameElement, embed: Exclude<Embed, { kind: "file" }>, onEnded: () => void) {
  let done = false;
  const post = (message: unknown) => frame.contentWindow?.postMessage(JSON.stringify(message), embed.origin);
  const subscribe = () => {
    if (embed.kind === "youtube") {
      post({ event: "listening", id: "hikaya-story", channel: "widget" });
      post({ event: "command", func: "addEventListener", args: ["onStateChange"], id: "hikaya-story", channel: "widget" });
    } else {
      post({ method: "addEventListener", value: "ended" });
    }
  };
  const onMessage = (event: MessageEvent) => {
    if (event.origin !== embed.origin || event.source !== frame.contentWindow) return;
    const data = parse(event.data);
    if (!data) return;
    if (embed.kind === "vimeo" && data.event === "ready") subscribe();
    const ended =
      embed.kind === "youtube"
        ? (data.event === "onStateChange" && data.info === 0) ||
          (data.event === "infoDelivery" && (data.info as { playerState?: number } | undefined)?.playerState === 0)
        : data.event === "ended";
    if (ended && !done) {
      done = true;
      onEnded();
    }
  };
  window.addEventListener("message", onMessage);
  frame.addEventListener("load", subscribe);
  subscribe();
  return () => {
    window.removeEventListener("message", onMessage);
    frame.removeEventListener("load", subscribe);
  };
}
