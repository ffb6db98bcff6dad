import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { requireAuthentication } from "../../api/access.ts";
import type { Authenticator } from "../../auth/authenticator.ts";
import { hashPassword, verifyPassword } from "../../auth/passwords.ts";
import type { LoginRateLimiter, RegistrationRateLimiter } from "../../auth/rate-limit.ts";
import type { TokenService } from "../../auth/tokens.ts";
import type { Db } from "../../db/index.ts";
import { HttpError, notFound, unauthorized } from "../../http/errors.ts";
import { noCredential } from "../../http/openapi.ts";
import { authResponseSchema, loginBodySchema, registerBodySchema, userSchema } from "./schemas.ts";
import { assertEmailFree, createUser, emailKey, findUserByEmail, findUserById, publicUser } from "./users.ts";

export interface AccountOptions {
  db: Db;
  tokens: TokenService;
  authenticator: Authenticator;
  loginLimiter: LoginRateLimiter;
  registrationLimiter: RegistrationRateLimiter;
  /** bcrypt cost for new password hashes (12 unless a test or benchmark lowers it). */
  passwordRounds: number;
  /** In PLATFORM_ENV=dev short passwords are accepted. */
  isDev: boolean;
}

export async function accountRoutes(app: FastifyInstance, options: AccountOptions): Promise<void> {
  const { db, tokens, authenticator, loginLimiter, registrationLimiter, passwordRounds } = options;
  const routes = app.withTypeProvider<ZodTypeProvider>();

  routes.post(
    "/auth/register",
    {
      schema: {
        tags: ["auth"],
        summary: "Create an account and get a token",
        security: noCredential,
        body: registerBodySchema(options.isDev),
        response: { 201: authResponseSchema },
      },
    },
    async (request, reply) => {
      const { email, password, name } = request.body;
      const retryAfter = await registrationLimiter.admit(request.ip);
      if (retryAfter !== undefined) {
        reply.header("retry-after", String(retryAfter));
        throw new HttpError(429, "Too many registrations from this address. Try again later.");
      }
      await assertEmailFree(db, email);
      const passwordHash = await hashPassword(password, passwordRounds);
      const user = await createUser(db, { email, name: name ?? undefined, passwordHash });
      return reply.code(201).send({ token: await tokens.issue(user), user: publicUser(user) });
    },
  );

  routes.post(
    "/auth/login",
    {
      schema: {
        tags: ["auth"],
        summary: "Exchange email and password for a token",
        security: noCredential,
        body: loginBodySchema,
        response: { 200: authResponseSchema },
      },
    },
    async (request, reply) => {
      const { email, password } = request.body;
      // Only failures count, per email *and* address: a stranger who knows someone's email cannot lock them out.
      const attempt = await loginLimiter.admit(emailKey(email), request.ip);
      if (attempt.retryAfterSeconds !== undefined) {
        reply.header("retry-after", String(attempt.retryAfterSeconds));
        throw new HttpError(429, "Too many login attempts. Try again later.");
      }
      const user = await findUserByEmail(db, email);
      if (!user) throw notFound("User");
      if (!(await verifyPassword(password, user.password_hash))) throw unauthorized("Invalid email or password");
      await attempt.succeeded();
      return reply.send({ token: await tokens.issue(user), user: publicUser(user) });
    },
  );

  await routes.register(async (scoped) => {
    requireAuthentication(scoped, authenticator);
    scoped
      .withTypeProvider<ZodTypeProvider>()
      .get(
        "/auth/me",
        { schema: { tags: ["auth"], summary: "The current user", response: { 200: userSchema } } },
        async (request) => {
          const user = await findUserById(db, request.principal.user.id);
          if (!user) throw notFound("User");
          return publicUser(user);
        },
      );
  });
}
