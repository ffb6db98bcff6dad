// Who a comment names: `@<name>`, case-insensitive, spaces in a name also written as `-`. One rule for agents (whom a
// mention sets to work, work/triggers.ts) and people (whom it tells, in their inbox).

/** The named things `content` mentions as `@name`; an address such as `ops@bot.example` names nobody. */
export function mentionedIn<A extends { name: string }>(content: string, named: A[]): A[] {
  if (!content.includes("@")) return [];
  const text = content.toLowerCase();
  return named.filter((each) => {
    const name = each.name.trim().toLowerCase();
    if (name === "") return false;
    return [name, name.replace(/\s+/g, "-")].some((form) => mentions(text, form));
  });
}

const NAME_CHARACTER = /[\p{L}\p{N}_-]/u;

function mentions(text: string, name: string): boolean {
  const needle = `@${name}`;
  for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + 1)) {
    const before = at > 0 ? text[at - 1]! : "";
    const after = text[at + needle.length] ?? "";
    if (!NAME_CHARACTER.test(before) && !NAME_CHARACTER.test(after)) return true;
  }
  return false;
}
