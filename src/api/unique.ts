// A row whose name (or pair of ids) is taken: the unique index answers, and the caller hears 409, not 500.
import { isUniqueViolation } from "../db/index.ts";
import { conflict } from "../http/errors.ts";

/** Runs `work`, turning a unique-key violation (a name or pair taken) into 409 with `message`. */
export async function uniqueOr409<T>(message: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict(message);
    throw error;
  }
}
