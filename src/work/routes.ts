// Tasks, runs and approvals under /workspaces/{ws} (spec agents-at-work §1-3), inside the membership guard.
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { actorOf } from "../api/access.ts";
import { pageQuery } from "../api/pagination.ts";
import type { Db } from "../db/index.ts";
import type { OpenStreams } from "../http/open-streams.ts";
import { eventStream } from "../http/openapi.ts";
import { issueParams } from "../platform/issues/schemas.ts";
import { decideApproval, getApproval, listApprovals } from "./approvals.ts";
import type { RunEventStreams } from "./run-stream.ts";
import { getRun, listTaskRuns } from "./runs.ts";
import {
  approvalListQuery,
  approvalParams,
  approvalSchema,
  createTaskBody,
  decideApprovalBody,
  runParams,
  runSchema,
  taskListQuery,
  taskParams,
  taskSchema,
} from "./schemas.ts";
import type { TaskService } from "./tasks.ts";

interface WorkRoutesOptions {
  db: Db;
  tasks: TaskService;
  streams: RunEventStreams;
  /** The cap on streams open per user. */
  openStreams: OpenStreams;
}

const lastEventId = z
  .string()
  .regex(/^\d{1,15}$/)
  .transform(Number)
  .optional()
  .catch(undefined)
  .describe("Resume after this event id");

/** Registered under `/workspaces/:ws_id`, inside the membership guard. */
export async function workRoutes(
  app: FastifyInstance,
  { db, tasks, streams, openStreams }: WorkRoutesOptions,
): Promise<void> {
  const routes = app.withTypeProvider<ZodTypeProvider>();

  routes.get(
    "/tasks",
    {
      schema: {
        tags: ["tasks"],
        summary: "Tasks of the workspace, newest first",
        params: z.object({ ws_id: z.string() }),
        querystring: taskListQuery,
        response: { 200: z.array(taskSchema) },
      },
    },
    async (request) => tasks.list(request.params.ws_id, request.query),
  );

  routes.get(
    "/tasks/:task_id",
    { schema: { tags: ["tasks"], summary: "A task", params: taskParams, response: { 200: taskSchema } } },
    async (request) => {
      const [task] = await tasks.show(request.params.ws_id, [
        await tasks.get(request.params.ws_id, request.params.task_id),
      ]);
      return task!;
    },
  );

  routes.post(
    "/tasks/:task_id/cancel",
    {
      schema: {
        tags: ["tasks"],
        summary: "Cancel an open task (any member); a running one stops within a second. 409 once it has ended",
        params: taskParams,
        response: { 200: taskSchema },
      },
    },
    async (request) => tasks.cancel(request.params.ws_id, request.params.task_id, actorOf(request)),
  );

  routes.get(
    "/issues/:issue_id/tasks",
    {
      schema: {
        tags: ["tasks"],
        summary: "Tasks of an issue, newest first",
        params: issueParams,
        querystring: pageQuery,
        response: { 200: z.array(taskSchema) },
      },
    },
    async (request) => tasks.listForIssue(request.params.ws_id, request.params.issue_id, request.query),
  );

  routes.post(
    "/issues/:issue_id/tasks",
    {
      schema: {
        tags: ["tasks"],
        summary: "Ask an agent to work on the issue: 201 with a new task, or 200 with its open task the ask joined",
        params: issueParams,
        body: createTaskBody,
        response: { 200: taskSchema, 201: taskSchema },
      },
    },
    async (request, reply) => {
      const { ws_id, issue_id } = request.params;
      const { task, created } = await tasks.createManual(ws_id, issue_id, request.body.agent_id, actorOf(request));
      return reply.code(created ? 201 : 200).send(task);
    },
  );

  routes.get(
    "/tasks/:task_id/runs",
    {
      schema: {
        tags: ["runs"],
        summary: "Every run of a task, oldest first",
        params: taskParams,
        querystring: pageQuery,
        response: { 200: z.array(runSchema) },
      },
    },
    async (request) => {
      const task = await tasks.get(request.params.ws_id, request.params.task_id);
      return listTaskRuns(db, task.id, request.query);
    },
  );

  routes.get(
    "/runs/:run_id",
    { schema: { tags: ["runs"], summary: "A run", params: runParams, response: { 200: runSchema } } },
    async (request) => getRun(db, request.params.ws_id, request.params.run_id),
  );

  routes.get(
    "/runs/:run_id/events",
    {
      schema: {
        tags: ["runs"],
        summary: "The run's AG-UI events as server-sent events: all so far, then live until the run ends",
        description:
          "Official AG-UI dialect (UPPER_SNAKE event names), one `id:` per event; `Last-Event-ID` resumes after it. " +
          "Approvals show as CUSTOM events approval_requested and approval_decided, questions as question_asked and " +
          "question_answered.",
        params: runParams,
        headers: z.object({ "last-event-id": lastEventId }),
        response: { 200: eventStream("The run's AG-UI events, live until the run ends") },
      },
    },
    async (request, reply) => {
      const run = await getRun(db, request.params.ws_id, request.params.run_id);
      const lastEventId = request.headers["last-event-id"] ?? 0;
      const stream = await openStreams.open(reply, request.principal.user.id, "run");
      if (!stream) return;
      const viewer = { userId: request.principal.user.id, apiKeyId: request.principal.apiKey?.id };
      await streams.follow(stream, { id: run.id, workspaceId: request.params.ws_id }, viewer, lastEventId);
    },
  );

  routes.get(
    "/approvals",
    {
      schema: {
        tags: ["approvals"],
        summary: "Approvals of the workspace, newest first",
        params: z.object({ ws_id: z.string() }),
        querystring: approvalListQuery,
        response: { 200: z.array(approvalSchema) },
      },
    },
    async (request) => {
      const { status, ...page } = request.query;
      return listApprovals(db, request.params.ws_id, { status }, page);
    },
  );

  routes.get(
    "/approvals/:approval_id",
    {
      schema: {
        tags: ["approvals"],
        summary: "An approval",
        params: approvalParams,
        response: { 200: approvalSchema },
      },
    },
    async (request) => getApproval(db, request.params.ws_id, request.params.approval_id),
  );

  routes.post(
    "/approvals/:approval_id",
    {
      schema: {
        tags: ["approvals"],
        summary: "Approve or deny a tool call (any member); the run resumes. Deciding twice is a 409",
        params: approvalParams,
        body: decideApprovalBody,
        response: { 200: approvalSchema },
      },
    },
    async (request) =>
      decideApproval(db, request.params.ws_id, request.params.approval_id, request.body, actorOf(request)),
  );
}
