import { z } from "zod";
import { pageQuery } from "../api/pagination.ts";
import { INBOX_KINDS } from "../db/enums.ts";

export const inboxItemSchema = z
  .object({
    id: z.string(),
    kind: z
      .enum(INBOX_KINDS)
      .describe(
        "`approval_requested`, `question_asked` (every member), `mentioned` (a comment naming `@<your name>`), " +
          "`task_failed` (on an issue you created or are assigned), `assigned` (an issue assigned to you), " +
          "`budget_warning`, `budget_exceeded` (admins)",
      ),
    workspace_id: z.string(),
    issue_id: z.string().nullable(),
    task_id: z.string().nullable(),
    title: z.string(),
    body: z.string().nullable().describe("The comment, the error, the spend: what the title sums up"),
    created_at: z.string(),
    read_at: z.string().nullable().describe("Null while unread"),
  })
  .meta({ id: "InboxItem" });

const flag = z
  .enum(["true", "false", "1", "0"])
  .transform((value) => value === "true" || value === "1")
  .optional();

const workspaceFilter = z.string().max(100).optional().describe("Only this workspace's items");

export const listInboxQuery = pageQuery.extend({
  unread: flag.describe("true: only unread items; false: only read ones"),
  workspace_id: workspaceFilter,
});

export const workspaceQuery = z.object({ workspace_id: workspaceFilter });

export const itemParams = z.object({ id: z.string() });

export const unreadSchema = z.object({ unread: z.number().int() }).meta({ id: "InboxUnread" });

export const readAllSchema = z
  .object({ read: z.number().int().describe("How many items this marked read") })
  .meta({ id: "InboxReadAll" });

export const inboxTicketSchema = z
  .object({
    ticket: z.string().describe("Pass as `?ticket=` to GET me/inbox/stream; valid for one minute"),
    expires_at: z.string(),
  })
  .meta({ id: "InboxStreamTicket" });

export const inboxStreamQuery = z.object({
  ticket: z.string().max(2000).optional().describe("A ticket from POST me/inbox/tickets, for clients without headers"),
});
