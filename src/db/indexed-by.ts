// SQLite's INDEXED BY, which Kysely does not build: a plugin naming the index a query reads its table by, for the
// few queries whose good plan SQLite's estimates miss (it has no statistics unless ANALYZE ran). The index must fit
// the query (a partial index's condition among its terms), or SQLite refuses to prepare it.
import {
  FromNode,
  type KyselyPlugin,
  type PluginTransformResultArgs,
  type QueryResult,
  RawNode,
  TableNode,
  type UnknownRow,
} from "kysely";

export function indexedBy(table: string, index: string): KyselyPlugin {
  return {
    transformQuery({ node }) {
      if (node.kind !== "SelectQueryNode" || !node.from) return node;
      const froms = node.from.froms.map((from) =>
        TableNode.is(from) && from.table.identifier.name === table
          ? RawNode.createWithSql(`"${table}" indexed by "${index}"`)
          : from,
      );
      return { ...node, from: FromNode.create(froms) };
    },
    transformResult: async ({ result }: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> => result,
  };
}
