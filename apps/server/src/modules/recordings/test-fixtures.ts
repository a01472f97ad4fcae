import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadBinaries } from "../media/ffmpeg.ts";

/** Upload bodies for recording tests and the bench. */
/** A WAV file: 44-byte header (16 kHz mono 16-bit) and `seconds` of silence. */
export function wav(seconds: number, claimedSeconds = seconds): Buffer {
  const byteRate = 32_000;
  const data = Math.round(seconds * byteRate);
  const head = Buffer.alloc(44);
  head.write("RIFF", 0, "latin1");
  head.writeUInt32LE(36 + data, 4);
  head.write("WAVEfmt ", 8, "latin1");
  head.writeUInt32LE(16, 16);
  head.writeUInt16LE(1, 20);
  head.writeUInt16LE(1, 22);
  head.writeUInt32LE(16_000, 24);
  head.writeUInt32LE(byteRate, 28);
  head.writeUInt16LE(2, 32);
  head.writeUInt16LE(16, 34);
  head.write("data", 36, "latin1");
  head.writeUInt32LE(Math.round(claimedSeconds * byteRate), 40);
  return Buffer.concat([head, Buffer.alloc(data)]);
}

export type Part = { name: string; value: string } | { name: string; filename: string; type: string; data: Buffer };

export function multipart(parts: Part[]) {
  const boundary = `----hikaya${Math.random().toString(16).slice(2)}`;
  const chunks: Buffer[] = [];
  for (const p of parts) {
    if ("data" in p) {
      chunks.push(
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"; filename="${p.filename}"\r\nContent-Type: ${p.type}\r\n\r\n`,
        ),
        p.data,
        Buffer.from("\r\n"),
      );
    } else {
      chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"\r\n\r\n${p.value}\r\n`));
    }
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

// ─── Minimal containers, as a browser's MediaRecorder starts them ─────────────────────────────────────

/** An EBML element: its id bytes, a size as an 8-byte vint (or "unknown", as MediaRecorder streams it), the body. */
function ebml(id: number[], body: Buffer | "unknown-size-then", ...rest: Buffer[]): Buffer {
  if (body === "unknown-size-then") {
    return Buffer.concat([Buffer.from(id), Buffer.from([0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]), ...rest]);
  }
  const size = Buffer.alloc(8);
  size.writeBigUInt64BE(BigInt(body.length) | (1n << 56n));
  return Buffer.concat([Buffer.from(id), size, body]);
}
const ebmlUint = (id: number[], value: number) => ebml(id, Buffer.from([value]));
const ebmlString = (id: number[], value: string) => ebml(id, Buffer.from(value, "latin1"));

/** A WebM (or Matroska) file with one track per entry of `tracks`, then a cluster of `bytes` filler. */
export function webm(tracks: ("audio" | "video")[], { docType = "webm", bytes = 600 } = {}): Buffer {
  const header = ebml(
    [0x1a, 0x45, 0xdf, 0xa3],
    Buffer.concat([ebmlUint([0x42, 0x86], 1), ebmlUint([0x42, 0xf7], 1), ebmlString([0x42, 0x82], docType)]),
  );
  const info = ebml([0x15, 0x49, 0xa9, 0x66], Buffer.concat([ebml([0x2a, 0xd7, 0xb1], Buffer.from([0x0f, 0x42, 0x40]))]));
  const entries = tracks.map((kind, i) =>
    ebml(
      [0xae],
      Buffer.concat([
        ebmlUint([0xd7], i + 1),
        ebmlUint([0x83], kind === "video" ? 1 : 2),
        ebmlString([0x86], kind === "video" ? "V_VP8" : "A_OPUS"),
      ]),
    ),
  );
  const trackList = ebml([0x16, 0x54, 0xae, 0x6b], Buffer.concat(entries));
  const cluster = ebml([0x1f, 0x43, 0xb6, 0x75], "unknown-size-then", Buffer.alloc(bytes, 0x55));
  return Buffer.concat([header, ebml([0x18, 0x53, 0x80, 0x67], "unknown-size-then", info, trackList, cluster)]);
}

function box(type: string, ...children: Buffer[]): Buffer {
  const body = Buffer.concat(children);
  const head = Buffer.alloc(8);
  head.writeUInt32BE(8 + body.length, 0);
  head.write(type, 4, "latin1");
  return Buffer.concat([head, body]);
}

/**
 * An MP4 file (`brand` "M4A " for .m4a, "isom" as Chrome and Safari record) with one track per handler; the
 * track list (moov) comes first ("fast start", as recorders write it) or after the media.
 */
export function mp4(handlers: ("soun" | "vide")[], { brand = "M4A ", bytes = 600, moovAtEnd = false } = {}): Buffer {
  const ftyp = box("ftyp", Buffer.from(`${brand}\0\0\0\0isomiso2mp41`, "latin1"));
  const traks = handlers.map((handler) => {
    const hdlr = box("hdlr", Buffer.alloc(8), Buffer.from(handler, "latin1"), Buffer.alloc(13));
    return box("trak", box("mdia", box("mdhd", Buffer.alloc(24)), hdlr));
  });
  const moov = box("moov", box("mvhd", Buffer.alloc(100)), ...traks);
  const mdat = box("mdat", Buffer.alloc(bytes, 0x55));
  return Buffer.concat(moovAtEnd ? [ftyp, mdat, moov] : [ftyp, moov, mdat]);
}

/** MPEG audio: an MP3 with an ID3v2 tag, a bare MP3 frame run, or ADTS AAC frames. */
export function mpegAudio(kind: "id3" | "mp3" | "adts", bytes = 2000): Buffer {
  if (kind === "id3")
    return Buffer.concat([Buffer.from("ID3", "latin1"), Buffer.from([4, 0, 0, 0, 0, 0, 0]), mpegAudio("mp3", bytes)]);
  // 128 kbit/s 44.1 kHz layer III frames are 417 bytes; ADTS frames carry their length in the header.
  const frame =
    kind === "mp3"
      ? Buffer.concat([Buffer.from([0xff, 0xfb, 0x90, 0x64]), Buffer.alloc(413)])
      : Buffer.concat([Buffer.from([0xff, 0xf1, 0x50, 0x80, 0x02, 0x1f, 0xfc]), Buffer.alloc(9)]);
  const frames: Buffer[] = [];
  for (let n = 0; n < bytes; n += frame.length) frames.push(frame);
  return Buffer.concat(frames);
}

// ─── Real encodings, for what must also play (every accepted voice is measured with ffprobe) ─────────────────────

export type EncodedAudio = "ogg-opus" | "m4a" | "mp4-isom" | "m4a-moov-at-end";

const ENCODINGS: Record<EncodedAudio, string[]> = {
  "ogg-opus": ["-c:a", "libopus", "-b:a", "16k", "-f", "ogg"],
  // ffmpeg's ipod muxer writes the "M4A " brand; +faststart puts the track list first, as recorders do.
  m4a: ["-c:a", "aac", "-b:a", "64k", "-f", "ipod", "-movflags", "+faststart"],
  "mp4-isom": ["-c:a", "aac", "-b:a", "64k", "-f", "mp4", "-brand", "isom", "-movflags", "+faststart"],
  "m4a-moov-at-end": ["-c:a", "aac", "-b:a", "64k", "-f", "ipod"],
};

/** `seconds` of a tone encoded by the bundled ffmpeg (one thread) in a container a browser or a phone records. */
export async function encodedAudio(format: EncodedAudio, seconds = 1): Promise<Buffer> {
  const { ffmpeg } = await loadBinaries();
  const dir = await mkdtemp(join(tmpdir(), "hikaya-fixture-"));
  try {
    const out = join(dir, "out");
    const args = ["-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i", `sine=duration=${seconds}`, "-threads", "1"];
    await new Promise<void>((resolve, reject) =>
      execFile(ffmpeg, [...args, ...ENCODINGS[format], out], (error) => (error ? reject(error) : resolve())),
    );
    return await readFile(out);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
