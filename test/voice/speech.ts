// Real speech for the voice tests: espeak-ng speaks, sox turns it into raw μ-law 8 kHz mono (what carriers send).
// Without them on PATH the test that asks for speech is skipped.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { requireTool, skipUnless } from "../helpers/system-tools.ts";

const cache = new Map<string, Buffer>();

export function speechUlaw(text: string, voice = "en"): Buffer {
  skipUnless(["espeak-ng", "sox"]);
  const key = `${voice}:${text}`;
  const cached = cache.get(key);
  if (cached) return cached;
  const dir = mkdtempSync(join(tmpdir(), "voice-speech-"));
  try {
    const wav = join(dir, "speech.wav");
    const raw = join(dir, "speech.ulaw");
    execFileSync(requireTool("espeak-ng"), ["-v", voice, "-w", wav, text]);
    execFileSync(requireTool("sox"), [wav, "-r", "8000", "-c", "1", "-e", "u-law", "-b", "8", "-t", "raw", raw]);
    const audio = readFileSync(raw);
    cache.set(key, audio);
    return audio;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
