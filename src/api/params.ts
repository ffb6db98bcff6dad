// Route parameters every workspace route shares; a feature's own ids extend these in its schemas.
import { z } from "zod";

export const workspaceParams = z.object({ ws_id: z.string() });
