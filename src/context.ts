// What the feature plugins share, built once by server.ts and handed to each plugin as its options.
import type { Config } from "./config.ts";
import type { Db, Dialect } from "./db/index.ts";
import type { Authenticator } from "./platform/auth/principal.ts";
import type { LoginRateLimiter } from "./platform/auth/rate-limit.ts";
import type { TokenService } from "./platform/auth/tokens.ts";
import type { ToolRegistry } from "./tools/registry.ts";

export interface AppContext {
  config: Config;
  db: Db;
  dialect: Dialect;
  tokens: TokenService;
  authenticator: Authenticator;
  loginLimiter: LoginRateLimiter;
  /** bcrypt cost for new password hashes (12 unless a test or benchmark lowers it). */
  passwordRounds: number;
  registry: ToolRegistry;
}
