import { z } from "zod";
import { title } from "../../api/fields.ts";

export const apiKeySchema = z
  .object({
    id: z.string(),
    name: z.string(),
    /** The key's first characters, to tell keys apart; the key itself is shown only once, at creation. */
    prefix: z.string(),
    created_at: z.string(),
    last_used_at: z.string().nullable(),
    created_by: z.string(),
  })
  .meta({ id: "ApiKey" });

export const createdApiKeySchema = apiKeySchema
  .extend({ key: z.string().describe("The secret. Shown only in this response: store it now.") })
  .meta({ id: "CreatedApiKey" });

export const createApiKeyBody = z.object({ name: title(200) });

export const apiKeyParams = z.object({ ws_id: z.string(), key_id: z.string() });
