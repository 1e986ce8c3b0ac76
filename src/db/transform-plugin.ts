import type {
  KyselyPlugin,
  OperationNodeTransformer,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryResult,
  RootOperationNode,
  UnknownRow,
} from 'kysely';

/** A Kysely plugin that rewrites each query with `transformer` and leaves results as they are. */
export function transformPlugin(transformer: OperationNodeTransformer): KyselyPlugin {
  return {
    transformQuery: (args: PluginTransformQueryArgs): RootOperationNode =>
      transformer.transformNode(args.node),
    transformResult: async (args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> => args.result,
  };
}
