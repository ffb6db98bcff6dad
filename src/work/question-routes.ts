// Questions under /workspaces/{ws} (spec control.md §3), inside the membership guard: the list, one question, and
// the answer any member gives once.
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { actorOf } from "../api/access.ts";
import type { Db } from "../db/index.ts";
import { forbidden } from "../http/errors.ts";
import { answerQuestion, getQuestion, listQuestions } from "./questions.ts";
import { answerQuestionBody, questionListQuery, questionParams, questionSchema } from "./schemas.ts";

const tags = ["questions"];

/** Registered under `/workspaces/:ws_id`, inside the membership guard. */
export async function questionRoutes(app: FastifyInstance, { db }: { db: Db }): Promise<void> {
  const routes = app.withTypeProvider<ZodTypeProvider>();

  routes.get(
    "/questions",
    {
      schema: {
        tags,
        summary: "Questions agents asked through ask_human, newest first",
        params: z.object({ ws_id: z.string() }),
        querystring: questionListQuery,
        response: { 200: z.array(questionSchema) },
      },
    },
    async (request) => {
      const { status, ...page } = request.query;
      return listQuestions(db, request.params.ws_id, { status }, page);
    },
  );

  routes.get(
    "/questions/:question_id",
    { schema: { tags, summary: "A question", params: questionParams, response: { 200: questionSchema } } },
    async (request) => getQuestion(db, request.params.ws_id, request.params.question_id),
  );

  routes.post(
    "/questions/:question_id/answer",
    {
      schema: {
        tags,
        summary: "Answer an open question (any member); the agent's run resumes with the answer",
        description:
          "With options, the answer must be one of them (400 otherwise), or a list of them when the question allows " +
          "several; else free text. Answering twice, or after the task was cancelled, is a 409.",
        params: questionParams,
        body: answerQuestionBody,
        response: { 200: questionSchema },
      },
    },
    async (request) => {
      // ask_human asks a person: an agent's own task token cannot answer in their place.
      if (request.principal.agent) throw forbidden("A person answers questions, not a task token");
      return answerQuestion(
        db,
        request.params.ws_id,
        request.params.question_id,
        request.body.answer,
        actorOf(request),
      );
    },
  );
}
