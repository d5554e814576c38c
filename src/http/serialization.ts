import { SerializerSelector } from "@fastify/fast-json-stringify-compiler";

type SerializerFactory = ReturnType<typeof SerializerSelector>;

/**
 * Fastify's own response serializers (fast-json-stringify), each compiled by the first answer
 * that uses it rather than when the server starts: compiling every route's response schemas was
 * a sixth of the CPU `dakiya serve` took to start listening, most of it for routes a process may
 * never answer. Given to Fastify as `schemaController.compilersFactory.buildSerializer`.
 */
export const serializersOnFirstUse: SerializerFactory = (externalSchemas, options) => {
  const compile = SerializerSelector()(externalSchemas, options);
  return (route) => {
    let serialize: ((document: unknown) => string) | undefined;
    return (document) => {
      serialize ??= compile(route);
      return serialize(document);
    };
  };
};
