/**
 * Reading the server's HLS playlists (server: modules/media/transcode.ts) for a download: which variant of a master
 * is the lowest picture, and a media playlist rewritten to name its files where the download keeps them.
 */

/** The media playlist of the variant with a picture (RESOLUTION) and the lowest BANDWIDTH, as an absolute address. */
export function lowestRung(master: string, masterUrl: string): string | null {
  const lines = master.split(/\r?\n/).map((line) => line.trim());
  let best: { bandwidth: number; uri: string } | null = null;
  lines.forEach((line, i) => {
    if (!line.startsWith("#EXT-X-STREAM-INF:")) return;
    const attributes = line.slice("#EXT-X-STREAM-INF:".length);
    // The sound-alone variant has no picture: "Save data" is the lowest picture, "Audio only" is asked for by name.
    if (!/(?:^|,)RESOLUTION=/.test(attributes)) return;
    const bandwidth = Number(/(?:^|,)BANDWIDTH=(\d+)/.exec(attributes)?.[1] ?? Number.NaN);
    const uri = lines.slice(i + 1).find((next) => next !== "" && !next.startsWith("#"));
    if (!uri || !Number.isFinite(bandwidth)) return;
    if (!best || bandwidth < best.bandwidth) best = { bandwidth, uri };
  });
  const chosen = best as { bandwidth: number; uri: string } | null;
  return chosen ? new URL(chosen.uri, masterUrl).href : null;
}

export interface RewrittenPlaylist {
  text: string;
  /** Each file the playlist names: where to fetch it (absolute) and the name it has in the rewritten text. */
  files: { from: string; name: string }[];
}

/**
 * A media playlist whose segments (and EXT-X-MAP init section) are renamed `<n>.<ext>`, so the copy plays from
 * beside the playlist whatever the original addresses were (signed paths, query strings).
 */
export function rewriteMediaPlaylist(text: string, playlistUrl: string): RewrittenPlaylist {
  const files: RewrittenPlaylist["files"] = [];
  const named = (uri: string) => {
    const from = new URL(uri, playlistUrl).href;
    const extension = /\.(\w{1,5})$/.exec(new URL(from).pathname)?.[1] ?? "bin";
    const name = `${files.length}.${extension}`;
    files.push({ from, name });
    return name;
  };
  const lines = text.split(/\r?\n/).map((line) => {
    const trimmed = line.trim();
    if (trimmed.startsWith("#EXT-X-MAP:")) return line.replace(/URI="([^"]+)"/, (_all, uri: string) => `URI="${named(uri)}"`);
    if (trimmed === "" || trimmed.startsWith("#")) return line;
    return named(trimmed);
  });
  return { text: lines.join("\n"), files };
}
