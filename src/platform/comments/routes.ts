import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { actorOf } from "../../api/access.ts";
import { deleteRoute } from "../../api/delete-route.ts";
import { pageQuery } from "../../api/pagination.ts";
import type { Db } from "../../db/index.ts";
import { issueParams } from "../issues/schemas.ts";
import { commentParams, commentSchema, createCommentBody, updateCommentBody } from "./schemas.ts";
import { addComment, deleteComment, listComments, updateComment } from "./service.ts";

const tags = ["comments"];

/** Registered under `/workspaces/:ws_id`, inside the membership guard. */
export async function commentRoutes(app: FastifyInstance, { db }: { db: Db }): Promise<void> {
  const routes = app.withTypeProvider<ZodTypeProvider>();

  routes.post(
    "/issues/:issue_id/comments",
    {
      schema: {
        tags,
        summary: "Comment on an issue, or reply to one of its comments (parent_id)",
        params: issueParams,
        body: createCommentBody,
        response: { 201: commentSchema },
      },
    },
    async (request, reply) =>
      reply
        .code(201)
        .send(await addComment(db, request.params.ws_id, request.params.issue_id, request.body, actorOf(request))),
  );

  routes.get(
    "/issues/:issue_id/comments",
    {
      schema: {
        tags,
        summary: "Comments of an issue, oldest first",
        params: issueParams,
        querystring: pageQuery,
        response: { 200: z.array(commentSchema) },
      },
    },
    async (request) => listComments(db, request.params.ws_id, request.params.issue_id, request.query),
  );

  routes.patch(
    "/issues/:issue_id/comments/:comment_id",
    {
      schema: {
        tags,
        summary: "Edit a comment (author or admin)",
        params: commentParams,
        body: updateCommentBody,
        response: { 200: commentSchema },
      },
    },
    async (request) => {
      const { ws_id, issue_id, comment_id } = request.params;
      return updateComment(
        db,
        ws_id,
        issue_id,
        comment_id,
        request.body.content,
        actorOf(request),
        request.membership.role,
      );
    },
  );

  deleteRoute(
    app,
    "/issues/:issue_id/comments/:comment_id",
    { tags, summary: "Delete a comment and its replies (author or admin)", params: commentParams },
    async (request) => {
      const { ws_id, issue_id, comment_id } = request.params;
      await deleteComment(db, ws_id, issue_id, comment_id, actorOf(request), request.membership.role);
    },
  );
}
