// The one shape of a DELETE (or revoke) route: path parameters checked by their schema, the service called with the
// request, 204 with no body.
import type { FastifyContextConfig, FastifyInstance, FastifyRequest, onRequestHookHandler } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import type { z } from "zod";
import { noContent } from "../http/openapi.ts";

export interface DeleteRouteOptions<Params extends z.ZodType> {
  tags: string[];
  summary: string;
  params: Params;
  onRequest?: onRequestHookHandler;
  /** Route settings other hooks read, such as the role it needs. */
  config?: FastifyContextConfig;
}

export function deleteRoute<Params extends z.ZodType>(
  app: FastifyInstance,
  path: string,
  options: DeleteRouteOptions<Params>,
  remove: (request: FastifyRequest<{ Params: z.output<Params> }>) => Promise<unknown>,
): void {
  const { onRequest, config, tags, summary, params } = options;
  app.withTypeProvider<ZodTypeProvider>().delete(
    path,
    {
      ...(config && { config }),
      ...(onRequest && { onRequest }),
      schema: { tags, summary, params, response: { 204: noContent } },
    },
    async (request, reply) => {
      await remove(request as FastifyRequest<{ Params: z.output<Params> }>);
      return reply.code(204).send();
    },
  );
}
