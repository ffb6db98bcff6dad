// A small zip writer for tests: real archives (deflate or stored, as any zip tool writes them), plus the tricks an
// attacker would play — names with `..`, symbolic links, sizes in the headers that lie.
import { crc32, deflateRawSync } from "node:zlib";

export interface ZipEntry {
  name: string;
  content?: Buffer | string;
  /** Deflate (default) or store. */
  method?: "deflate" | "store";
  /** Marks the entry as a symbolic link (Unix mode in the external attributes); its content is the target. */
  symlink?: boolean;
  /** What the headers claim the unpacked size is, instead of the truth. */
  claimedSize?: number;
}

export function buildZip(entries: ZipEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, "utf8");
    const content = Buffer.isBuffer(entry.content) ? entry.content : Buffer.from(entry.content ?? "", "utf8");
    const method = entry.method === "store" ? 0 : 8;
    const data = method === 8 ? deflateRawSync(content) : content;
    const crc = crc32(content);
    const size = entry.claimedSize ?? content.length;
    const mode = entry.symlink ? 0o120777 : entry.name.endsWith("/") ? 0o40755 : 0o100644;

    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4); // version needed
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    locals.push(local, name, data);

    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE((3 << 8) | 20, 4); // made by Unix
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(method, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE((mode << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, name);
    offset += local.length + name.length + data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}
