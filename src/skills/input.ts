// The two shapes a skill folder arrives in (a JSON list of files, or a zip), read into one checked folder.
import { invalid } from "../http/errors.ts";
import { checkFolder, type FolderFile, type SkillFolder } from "./folder.ts";
import { SKILL_MD } from "./limits.ts";
import type { SkillFilesInput } from "./schemas.ts";
import { rootOfFolder, unpackZip } from "./zip.ts";

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export function folderFromJson(body: SkillFilesInput): SkillFolder {
  const files: FolderFile[] = body.files.map((file, index) => {
    if (file.encoding === "utf8") return { path: file.path, content: Buffer.from(file.content, "utf8") };
    if (!BASE64.test(file.content)) throw invalid(["body", "files", index, "content"], "Content is not valid base64");
    return { path: file.path, content: Buffer.from(file.content, "base64") };
  });
  return checkFolder(files, (index) => ["body", "files", index, "path"]);
}

export async function folderFromZip(zip: Buffer): Promise<SkillFolder> {
  const files = rootOfFolder(await unpackZip(zip), SKILL_MD);
  return checkFolder(files, (index) => ["body", files[index]?.path ?? index]);
}
