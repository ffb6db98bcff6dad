// Unpacks an uploaded zip of a skill folder in memory, refusing what could hurt: more bytes than a skill may hold
// (counted while inflating, whatever the headers claim), more entries than it may have, symbolic links, encrypted or
// exotic entries, and names that would escape the folder. Nothing is written anywhere: the caller gets the files.
import type { Readable } from "node:stream";
import yauzl, { type Entry, type ZipFile } from "yauzl";
import { invalid, ValidationError } from "../http/errors.ts";
import type { FolderFile } from "./folder.ts";
import { MAX_SKILL_BYTES, MAX_SKILL_FILES } from "./limits.ts";
import { pathProblem } from "./paths.ts";

/** Folder entries and files are both entries; more than this many is no skill folder. */
const MAX_ENTRIES = MAX_SKILL_FILES * 10;
const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;
const STORED = 0;
const DEFLATED = 8;

const refuse = (message: string) => invalid(["body"], message);

/** Archive clutter some zip tools add, never part of the folder. */
const isClutter = (path: string) => path.startsWith("__MACOSX/") || path === ".DS_Store" || path.endsWith("/.DS_Store");

/**
 * The files of the zip, paths as in the archive (folders left out). 422 naming the entry for anything refused, and
 * for a zip that cannot be read.
 */
export async function unpackZip(zip: Buffer): Promise<FolderFile[]> {
  const archive = await open(zip);
  try {
    if (archive.entryCount > MAX_ENTRIES) {
      throw refuse(`The zip has ${archive.entryCount} entries; a skill holds at most ${MAX_SKILL_FILES} files`);
    }
    const files: FolderFile[] = [];
    let unpacked = 0;
    for (let entry = await nextEntry(archive); entry; entry = await nextEntry(archive)) {
      const path = entryName(entry);
      const problem = pathProblem(path.endsWith("/") ? path.slice(0, -1) : path);
      if (problem) throw refuse(`Zip entry "${path}": path ${problem}`);
      if (isSymlink(entry)) throw refuse(`Zip entry "${path}" is a symbolic link; a skill holds only files`);
      if (path.endsWith("/") || isClutter(path)) continue;
      if (files.length === MAX_SKILL_FILES) throw refuse(`A skill holds at most ${MAX_SKILL_FILES} files`);
      if (entry.isEncrypted()) throw refuse(`Zip entry "${path}" is encrypted`);
      if (entry.compressionMethod !== STORED && entry.compressionMethod !== DEFLATED) {
        throw refuse(`Zip entry "${path}" uses compression method ${entry.compressionMethod}; use deflate or none`);
      }
      const content = await readCapped(archive, entry, path, MAX_SKILL_BYTES - unpacked);
      unpacked += content.length;
      files.push({ path, content });
    }
    return files;
  } finally {
    archive.close();
  }
}

/** Strips the one top-level folder the files share when SKILL.md sits in it rather than at the root. */
export function rootOfFolder(files: FolderFile[], skillMd: string): FolderFile[] {
  if (files.some((file) => file.path === skillMd)) return files;
  const top = files[0]?.path.split("/")[0];
  if (top === undefined || !files.every((file) => file.path.startsWith(`${top}/`))) return files;
  return files.map((file) => ({ ...file, path: file.path.slice(top.length + 1) }));
}

function open(zip: Buffer): Promise<ZipFile> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(
      zip,
      { lazyEntries: true, decodeStrings: false, validateEntrySizes: true, autoClose: false },
      (error, archive) => (error ? reject(unreadable(error)) : resolve(archive)),
    );
  });
}

function nextEntry(archive: ZipFile): Promise<Entry | undefined> {
  return new Promise((resolve, reject) => {
    const onEntry = (entry: Entry) => settle(() => resolve(entry));
    const onEnd = () => settle(() => resolve(undefined));
    const onError = (error: Error) => settle(() => reject(unreadable(error)));
    const settle = (done: () => void) => {
      archive.off("entry", onEntry).off("end", onEnd).off("error", onError);
      done();
    };
    archive.on("entry", onEntry).on("end", onEnd).on("error", onError);
    archive.readEntry();
  });
}

/** The entry's name as its flags say to decode it; backslashes are kept so that pathProblem refuses them. */
function entryName(entry: Entry): string {
  return yauzl.getFileNameLowLevel(entry.generalPurposeBitFlag, entry.fileNameRaw, entry.extraFields, true);
}

/** Unix mode bits live in the high half of the external attributes; a link there is a link whatever made the zip. */
const isSymlink = (entry: Entry) => ((entry.externalFileAttributes >>> 16) & S_IFMT) === S_IFLNK;

/** The entry's bytes, counted as they inflate: past `budget` it stops reading and refuses the zip. */
async function readCapped(archive: ZipFile, entry: Entry, path: string, budget: number): Promise<Buffer> {
  if (entry.uncompressedSize > budget) throw bomb(path);
  const stream = await new Promise<Readable>((resolve, reject) =>
    archive.openReadStream(entry, (error, opened) => (error ? reject(unreadable(error)) : resolve(opened))),
  );
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > budget) throw bomb(path);
      chunks.push(chunk);
    }
  } catch (error) {
    stream.destroy();
    if (error instanceof ValidationError) throw error;
    throw refuse(`Zip entry "${path}" cannot be read: ${error instanceof Error ? error.message : String(error)}`);
  }
  return Buffer.concat(chunks, size);
}

const bomb = (path: string) =>
  refuse(`Zip entry "${path}" unpacks past the 5 MiB a skill may hold; nothing was stored`);

function unreadable(error: unknown) {
  const reason = error instanceof Error ? error.message : String(error);
  return refuse(`The zip cannot be read: ${reason}`);
}
