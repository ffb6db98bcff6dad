import { z } from "zod";

const MAX_PAGE_SIZE = 200;

/** `limit` 1.. (above 200 is clamped to 200, as the seed says), default 50; `offset` ≥ 0, default 0. */
export const pageQuery = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .default(50)
    .transform((limit) => Math.min(limit, MAX_PAGE_SIZE)),
  offset: z.coerce.number().int().min(0).default(0),
});

export type Page = z.infer<typeof pageQuery>;
