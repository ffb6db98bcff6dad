// `GET workspaces/{ws}/usage` (spec control.md §1), inside the membership guard.
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { pageQuery } from "../api/pagination.ts";
import type { Db } from "../db/index.ts";
import { invalid } from "../http/errors.ts";
import { currentMonth, usageReport } from "./report.ts";

/** A date (`2026-11-01`, midnight UTC) or a date and time (no zone: UTC). */
const instant = z
  .string()
  .max(40)
  .regex(/^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:?\d{2})?)?$/, {
    message: "must be a date (YYYY-MM-DD) or an ISO 8601 date and time",
  })
  .transform((value, context) => {
    const zoned = /(Z|[+-]\d{2}:?\d{2})$/.test(value) || value.length === 10 ? value : `${value}Z`;
    const ms = Date.parse(value.length === 10 ? `${value}T00:00:00Z` : zoned);
    if (Number.isNaN(ms)) {
      context.addIssue({ code: "custom", message: "is not a valid date" });
      return z.NEVER;
    }
    return ms;
  });

export const usageQuery = pageQuery.extend({
  from: instant.optional().describe("Start (inclusive); default: the first day of this month (UTC)"),
  to: instant.optional().describe("End (exclusive); default: the first day of next month (UTC)"),
  group_by: z.enum(["agent", "model", "day", "issue"]).default("agent"),
});

export const usageRowSchema = z
  .object({
    key: z.string().describe("The agent's id, the model, the day (YYYY-MM-DD) or the issue's id"),
    name: z.string().optional().describe("The agent's name or the issue's title"),
    runs: z.number().int(),
    input_tokens: z.number().int().describe("Uncached input"),
    output_tokens: z.number().int(),
    cache_read_tokens: z.number().int(),
    cache_write_tokens: z.number().int(),
    cost_usd: z.number().describe("Sum of the priced runs' cost"),
  })
  .meta({ id: "UsageRow" });

export async function usageRoutes(app: FastifyInstance, { db }: { db: Db }): Promise<void> {
  app.withTypeProvider<ZodTypeProvider>().get(
    "/usage",
    {
      schema: {
        tags: ["usage"],
        summary: "Usage and cost of the runs started in [from, to), grouped",
        params: z.object({ ws_id: z.string() }),
        querystring: usageQuery,
        response: { 200: z.array(usageRowSchema) },
      },
    },
    async (request) => {
      const { from, to, group_by, limit, offset } = request.query;
      const month = currentMonth();
      const range = { from: from ?? month.from, to: to ?? month.to };
      if (range.to <= range.from) throw invalid(["query", "to"], "to must be after from");
      const rows = await usageReport(db, request.params.ws_id, range, group_by);
      return rows.slice(offset, offset + limit);
    },
  );
}
