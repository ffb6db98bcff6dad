import { uniqueOr409 } from "../../api/unique.ts";
import type { Db } from "../../db/index.ts";
import type { UsersTable } from "../../db/schema.ts";
import { newId, now } from "../../db/values.ts";
import { conflict } from "../../http/errors.ts";

type PublicUser = Omit<UsersTable, "email_key" | "password_hash">;

/** The address as stored: the domain lower-cased (the local part is the owner's business). */
function normaliseEmail(email: string): string {
  const at = email.lastIndexOf("@");
  return at < 0
    ? email.trim()
    : `${email.slice(0, at).trim()}@${email
        .slice(at + 1)
        .trim()
        .toLowerCase()}`;
}

/** The login key: the whole address lower-cased, so logins match case-insensitively. */
export const emailKey = (email: string): string => email.trim().toLowerCase();

export const publicUser = (user: UsersTable): PublicUser => ({
  id: user.id,
  name: user.name,
  email: user.email,
  created_at: user.created_at,
  avatar_url: user.avatar_url,
});

export const findUserByEmail = (db: Db, email: string) =>
  db.selectFrom("users").selectAll().where("email_key", "=", emailKey(email)).executeTakeFirst();

export const findUserById = (db: Db, id: string) =>
  db.selectFrom("users").selectAll().where("id", "=", id).executeTakeFirst();

const ALREADY_REGISTERED = "Email already registered";

export async function assertEmailFree(db: Db, email: string): Promise<void> {
  if (await findUserByEmail(db, email)) throw conflict(ALREADY_REGISTERED);
}

export async function createUser(
  db: Db,
  input: { email: string; name: string | undefined; passwordHash: string },
): Promise<UsersTable> {
  const email = normaliseEmail(input.email);
  const user: UsersTable = {
    id: newId(),
    email,
    email_key: emailKey(email),
    name: input.name ?? email.slice(0, email.lastIndexOf("@")),
    password_hash: input.passwordHash,
    avatar_url: null,
    created_at: now(),
  };
  await uniqueOr409(ALREADY_REGISTERED, () => db.insertInto("users").values(user).execute());
  return user;
}
