import { z } from "zod";
import { MAX_PASSWORD_BYTES } from "../../auth/passwords.ts";

export const userSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    email: z.string(),
    created_at: z.string(),
    avatar_url: z.string().nullable(),
  })
  .meta({ id: "User" });

export const authResponseSchema = z.object({ token: z.string(), user: userSchema }).meta({ id: "AuthResponse" });

const MIN_PASSWORD_LENGTH = 8;

export function registerBodySchema(isDev: boolean) {
  return z.object({
    email: z.email({ message: "Enter a valid email address" }).max(320),
    password: z
      .string()
      .min(isDev ? 1 : MIN_PASSWORD_LENGTH, {
        message: isDev ? "Password must not be empty" : `Password must be at least ${MIN_PASSWORD_LENGTH} characters`,
      })
      .refine((password) => Buffer.byteLength(password) <= MAX_PASSWORD_BYTES, {
        message: `Password must be at most ${MAX_PASSWORD_BYTES} bytes`,
      }),
    // PraisonAI's client sends `"name": null` when no name is given.
    name: z.string().trim().min(1).max(200).nullable().optional(),
  });
}

export const loginBodySchema = z.object({
  email: z.string().min(1).max(320),
  password: z.string().max(1024),
});
