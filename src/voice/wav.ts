// μ-law 8 kHz to 16-bit PCM WAV: the G.711 expansion and the RIFF header of an 8 kHz mono file.

export const SAMPLE_RATE = 8_000;
const BYTES_PER_SAMPLE = 2;
export const WAV_HEADER_BYTES = 44;

/** G.711 μ-law byte → 16-bit linear sample, for every byte. */
const ULAW_TO_LINEAR = new Int16Array(256);
for (let byte = 0; byte < 256; byte++) {
  const value = ~byte & 0xff;
  const exponent = (value >> 4) & 0x07;
  const magnitude = ((((value & 0x0f) << 3) + 0x84) << exponent) - 0x84;
  ULAW_TO_LINEAR[byte] = value & 0x80 ? -magnitude : magnitude;
}

/** μ-law's silence: the byte that expands to 0. */
export const ULAW_SILENCE = 0xff;

/** Sums two μ-law signals sample by sample into 16-bit little-endian PCM, clipped to the 16-bit range. */
export function mixToPcm(first: Uint8Array, second: Uint8Array): Buffer {
  const samples = Math.max(first.length, second.length);
  const pcm = Buffer.alloc(samples * BYTES_PER_SAMPLE);
  for (let index = 0; index < samples; index++) {
    const sum = ULAW_TO_LINEAR[first[index] ?? ULAW_SILENCE]! + ULAW_TO_LINEAR[second[index] ?? ULAW_SILENCE]!;
    pcm.writeInt16LE(sum > 32_767 ? 32_767 : sum < -32_768 ? -32_768 : sum, index * BYTES_PER_SAMPLE);
  }
  return pcm;
}

/** The 44-byte header of a PCM WAV file: 8 kHz, 16-bit, mono, `samples` long. */
export function wavHeader(samples: number): Buffer {
  const dataBytes = samples * BYTES_PER_SAMPLE;
  const header = Buffer.alloc(WAV_HEADER_BYTES);
  header.write("RIFF", 0, "ascii");
  header.writeUInt32LE(36 + dataBytes, 4);
  header.write("WAVE", 8, "ascii");
  header.write("fmt ", 12, "ascii");
  header.writeUInt32LE(16, 16); // fmt chunk size
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(SAMPLE_RATE, 24);
  header.writeUInt32LE(SAMPLE_RATE * BYTES_PER_SAMPLE, 28); // byte rate
  header.writeUInt16LE(BYTES_PER_SAMPLE, 32); // block align
  header.writeUInt16LE(16, 34); // bits per sample
  header.write("data", 36, "ascii");
  header.writeUInt32LE(dataBytes, 40);
  return header;
}
