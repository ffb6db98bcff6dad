// What the feature plugins share, built once by server.ts and handed to each plugin as its options.

import type { Authenticator } from "./auth/authenticator.ts";
import type { LoginRateLimiter } from "./auth/rate-limit.ts";
import type { TokenService } from "./auth/tokens.ts";
import type { Config } from "./config.ts";
import type { Db, SqlDialect } from "./db/index.ts";
import type { ToolRegistry } from "./tools/registry.ts";

export interface AppContext {
  config: Config;
  db: Db;
  dialect: SqlDialect;
  tokens: TokenService;
  authenticator: Authenticator;
  loginLimiter: LoginRateLimiter;
  /** bcrypt cost for new password hashes (12 unless a test or benchmark lowers it). */
  passwordRounds: number;
  registry: ToolRegistry;
}
