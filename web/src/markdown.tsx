// A small Markdown renderer that builds React elements only: user text is never parsed as HTML, and links are
// kept only for http(s) and mailto targets. Covers what people and agents write: headings, paragraphs, lists and
// task lists (`- [ ]`, `- [x]`), quotes, fenced code, inline code, bold, italic, strikethrough and links.
import type { ReactNode } from "react";

const SAFE_LINK = /^(https?:\/\/|mailto:)/i;

function inline(text: string, key: string): ReactNode[] {
  const out: ReactNode[] = [];
  const pattern =
    /(`[^`]+`)|(\*\*[^*]+\*\*|__[^_]+__)|(\*[^*\s][^*]*\*|_[^_\s][^_]*_)|(~~[^~]+~~)|(\[[^\]]+\]\([^)\s]+\))/g;
  let last = 0;
  let index = 0;
  for (const found of text.matchAll(pattern)) {
    const at = found.index ?? 0;
    if (at > last) out.push(text.slice(last, at));
    const token = found[0];
    const k = `${key}-${index++}`;
    if (found[1]) out.push(<code key={k}>{token.slice(1, -1)}</code>);
    else if (found[2]) out.push(<strong key={k}>{inline(token.slice(2, -2), k)}</strong>);
    else if (found[3]) out.push(<em key={k}>{inline(token.slice(1, -1), k)}</em>);
    else if (found[4]) out.push(<del key={k}>{inline(token.slice(2, -2), k)}</del>);
    else {
      const [, label = "", href = ""] = /^\[([^\]]+)\]\(([^)\s]+)\)$/.exec(token) ?? [];
      out.push(
        SAFE_LINK.test(href) ? (
          <a key={k} href={href} rel="noopener noreferrer nofollow" target="_blank">
            {label}
          </a>
        ) : (
          `${label} (${href})`
        ),
      );
    }
    last = at + token.length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

export function Markdown({ text }: { text: string }) {
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  const blocks: ReactNode[] = [];
  let index = 0;
  let key = 0;
  while (index < lines.length) {
    const line = lines[index]!;
    const k = `b${key++}`;
    if (line.startsWith("```")) {
      const code: string[] = [];
      index++;
      while (index < lines.length && !lines[index]!.startsWith("```")) code.push(lines[index++]!);
      index++;
      blocks.push(
        <pre key={k}>
          <code>{code.join("\n")}</code>
        </pre>,
      );
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading) {
      const level = Math.min(heading[1]!.length + 2, 6);
      const Tag = `h${level}` as "h3";
      blocks.push(<Tag key={k}>{inline(heading[2]!, k)}</Tag>);
      index++;
      continue;
    }
    if (/^\s*([-*+]|\d+\.)\s+/.test(line)) {
      const ordered = /^\s*\d+\./.test(line);
      const items: ReactNode[] = [];
      while (index < lines.length && /^\s*([-*+]|\d+\.)\s+/.test(lines[index]!)) {
        const item = lines[index]!.replace(/^\s*([-*+]|\d+\.)\s+/, "");
        const itemKey = `${k}-${items.length}`;
        const task = /^\[([ xX])\]\s+(.*)$/.exec(item);
        items.push(
          task ? (
            <li key={itemKey} className="task-item">
              <label>
                <input type="checkbox" checked={task[1] !== " "} disabled readOnly /> {inline(task[2]!, itemKey)}
              </label>
            </li>
          ) : (
            <li key={itemKey}>{inline(item, itemKey)}</li>
          ),
        );
        index++;
      }
      blocks.push(ordered ? <ol key={k}>{items}</ol> : <ul key={k}>{items}</ul>);
      continue;
    }
    if (line.startsWith(">")) {
      const quoted: string[] = [];
      while (index < lines.length && lines[index]!.startsWith(">")) quoted.push(lines[index++]!.replace(/^>\s?/, ""));
      blocks.push(<blockquote key={k}>{inline(quoted.join(" "), k)}</blockquote>);
      continue;
    }
    if (line.trim() === "") {
      index++;
      continue;
    }
    const paragraph: string[] = [];
    while (
      index < lines.length &&
      lines[index]!.trim() !== "" &&
      !/^(```|#{1,6}\s|>|\s*([-*+]|\d+\.)\s)/.test(lines[index]!)
    )
      paragraph.push(lines[index++]!);
    blocks.push(<p key={k}>{inline(paragraph.join("\n"), k)}</p>);
  }
  return <div className="markdown">{blocks}</div>;
}
