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
