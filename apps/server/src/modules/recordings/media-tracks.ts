/**
 * The kinds of track a WebM/Matroska or MP4 file declares in its first bytes.
 *
 * Why this exists beside file-type: file-type names every WebM `video/webm` and every MP4 but the `M4A ` brand
 * `video/mp4`, from the container alone, so it cannot tell a browser's audio recording (WebM/Opus, or MP4/AAC
 * from Safari and Chrome, brand `isom`) from a video. A recording or voice note must be audio only, so the few
 * header bytes that list the tracks are read here: Matroska's Tracks/TrackEntry/TrackType, MP4's
 * moov/trak/mdia/hdlr handler. Null when the list of tracks is not within the bytes given.
 */
export type TrackKind = "audio" | "video" | "other";

// ─── Matroska / WebM (EBML) ─────────────────────────────────────────────────────────────────────────

const SEGMENT = 0x18538067;
const TRACKS = 0x1654ae6b;
const TRACK_ENTRY = 0xae;
const TRACK_TYPE = 0x83;
const CLUSTER = 0x1f43b675;

interface Element {
  id: number;
  /** Null for an element of unknown size (streamed): it runs to the end of its parent. */
  size: number | null;
  body: number;
}

function readVint(buf: Buffer, at: number, keepMarker: boolean): { value: number; length: number; allOnes: boolean } | null {
  const first = buf[at];
  if (first === undefined || first === 0) return null;
  const length = Math.clz32(first) - 23; // 1 for 0b1xxxxxxx … 8 for 0b00000001
  if (at + length > buf.length) return null;
  let value = keepMarker ? first : first & (0xff >> length);
  let allOnes = value === 0xff >> length;
  for (let i = 1; i < length; i++) {
    const byte = buf[at + i] ?? 0;
    value = value * 256 + byte;
    allOnes &&= byte === 0xff;
  }
  return { value, length, allOnes };
}

function readElement(buf: Buffer, at: number): Element | null {
  const id = readVint(buf, at, true);
  if (!id) return null;
  const size = readVint(buf, at + id.length, false);
  if (!size) return null;
  return { id: id.value, size: size.allOnes ? null : size.value, body: at + id.length + size.length };
}

function matroskaTracks(buf: Buffer): TrackKind[] | null {
  let at = 0;
  // Top level: the EBML header, then the Segment, which holds the Tracks before any Cluster of media.
  while (at < buf.length) {
    const el = readElement(buf, at);
    if (!el) return null;
    if (el.id === SEGMENT) return segmentTracks(buf, el.body, el.size === null ? buf.length : el.body + el.size);
    if (el.size === null) return null;
    at = el.body + el.size;
  }
  return null;
}

function segmentTracks(buf: Buffer, start: number, end: number): TrackKind[] | null {
  for (let at = start; at < Math.min(end, buf.length); ) {
    const el = readElement(buf, at);
    if (!el || el.id === CLUSTER) return null;
    if (el.id === TRACKS) {
      if (el.size === null || el.body + el.size > buf.length) return null;
      const kinds: TrackKind[] = [];
      for (let t = el.body; t < el.body + el.size; ) {
        const entry = readElement(buf, t);
        if (!entry || entry.size === null) return null;
        if (entry.id === TRACK_ENTRY) kinds.push(trackEntryKind(buf, entry.body, entry.body + entry.size));
        t = entry.body + entry.size;
      }
      return kinds;
    }
    if (el.size === null) return null;
    at = el.body + el.size;
  }
  return null;
}

function trackEntryKind(buf: Buffer, start: number, end: number): TrackKind {
  for (let at = start; at < end; ) {
    const el = readElement(buf, at);
    if (!el || el.size === null) break;
    if (el.id === TRACK_TYPE) {
      const type = buf.readUIntBE(el.body, Math.min(Math.max(el.size, 1), 6));
      return type === 2 ? "audio" : type === 1 ? "video" : "other";
    }
    at = el.body + el.size;
  }
  return "other";
}

// ─── MP4 (ISO BMFF) ─────────────────────────────────────────────────────────────────────────────────

function* boxes(buf: Buffer, start: number, end: number): Generator<{ type: string; body: number; end: number }> {
  for (let at = start; at + 8 <= end; ) {
    let size = buf.readUInt32BE(at);
    const type = buf.toString("latin1", at + 4, at + 8);
    let body = at + 8;
    if (size === 1) {
      if (at + 16 > end) return;
      size = Number(buf.readBigUInt64BE(at + 8));
      body = at + 16;
    } else if (size === 0) size = end - at;
    if (size < body - at) return;
    yield { type, body, end: at + size };
    at += size;
  }
}

function mp4Tracks(buf: Buffer): TrackKind[] | null {
  for (const top of boxes(buf, 0, buf.length)) {
    if (top.type !== "moov") continue;
    if (top.end > buf.length) return null;
    const kinds: TrackKind[] = [];
    for (const trak of boxes(buf, top.body, top.end)) {
      if (trak.type !== "trak") continue;
      let kind: TrackKind = "other";
      for (const mdia of boxes(buf, trak.body, trak.end)) {
        if (mdia.type !== "mdia") continue;
        for (const hdlr of boxes(buf, mdia.body, mdia.end)) {
          if (hdlr.type !== "hdlr" || hdlr.body + 12 > hdlr.end) continue;
          // FullBox version/flags (4), pre_defined (4), then the handler type.
          const handler = buf.toString("latin1", hdlr.body + 8, hdlr.body + 12);
          kind = handler === "soun" ? "audio" : handler === "vide" ? "video" : "other";
        }
      }
      kinds.push(kind);
    }
    return kinds;
  }
  return null;
}

export function declaredTracks(container: "matroska" | "mp4", head: Buffer): TrackKind[] | null {
  try {
    return container === "matroska" ? matroskaTracks(head) : mp4Tracks(head);
  } catch {
    return null; // a length pointing past the bytes given: the track list is not readable here
  }
}

/** True when the file lists at least one audio track and no video track. */
export const isAudioOnly = (tracks: TrackKind[] | null) => !!tracks?.includes("audio") && !tracks.includes("video");
