// Reading a recording back: its format and length as sox reports them, and its samples; μ-law turned into the
// samples it stands for by sox too, so the expected audio is not computed by the code under test.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { requireTool } from "../helpers/system-tools.ts";

export interface WavInfo {
  sampleRate: number;
  channels: number;
  bitsPerSample: number;
  encoding: string;
  samples: number;
}

/** What `sox --i` says about the file. */
export function wavInfo(path: string): WavInfo {
  const ask = (flag: string) => execFileSync(requireTool("sox"), ["--i", flag, path]).toString().trim();
  return {
    sampleRate: Number(ask("-r")),
    channels: Number(ask("-c")),
    bitsPerSample: Number(ask("-b")),
    encoding: ask("-e"),
    samples: Number(ask("-s")),
  };
}

/** The 16-bit samples of a WAV file's data (after the 44-byte header this server writes). */
export function wavSamples(path: string): Int16Array {
  const file = readFileSync(path);
  expectRiffHeader(file);
  const data = file.subarray(44);
  return new Int16Array(data.buffer.slice(data.byteOffset, data.byteOffset + data.length));
}

function expectRiffHeader(file: Buffer): void {
  const tags = [file.toString("ascii", 0, 4), file.toString("ascii", 8, 12), file.toString("ascii", 36, 40)];
  if (tags.join() !== "RIFF,WAVE,data") throw new Error(`not a plain PCM WAV file: ${tags.join()}`);
}

/** μ-law bytes as 16-bit samples, decoded by sox. */
export function ulawToSamples(ulaw: Buffer): Int16Array {
  const dir = mkdtempSync(join(tmpdir(), "voice-ulaw-"));
  try {
    const input = join(dir, "in.ulaw");
    const output = join(dir, "out.raw");
    writeFileSync(input, ulaw);
    execFileSync(requireTool("sox"), [
      ...["-t", "raw", "-r", "8000", "-c", "1", "-e", "u-law", "-b", "8", input],
      ...["-t", "raw", "-e", "signed-integer", "-b", "16", "-L", output],
    ]);
    const raw = readFileSync(output);
    return new Int16Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.length));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
