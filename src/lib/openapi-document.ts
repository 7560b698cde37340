/**
 * Reads an OpenAPI document for the OpenAPI → MCP conversion: YAML or JSON text, an OpenAPI 3.0
 * or 3.1 document, its internal `$ref`s dereferenced with @apidevtools/json-schema-ref-parser.
 * External references (other files, URLs) are never followed: the document must stand alone, so
 * reading it fetches nothing. Recursive schemas stay linked as cycles, which the converter bounds.
 */
import $RefParser from '@apidevtools/json-schema-ref-parser';
import { parse as parseYaml, YAMLError } from 'yaml';
import { OpenApiDocumentError, openApiVersion, type JsonObject } from '../domain/openapi-tools.js';

/** Parses and checks a document; throws OpenApiDocumentError with a message fit for an admin. */
export function parseOpenApiDocument(text: string): JsonObject {
  let doc: unknown;
  try {
    doc = parseYaml(text, { maxAliasCount: 100 });
  } catch (err) {
    if (!(err instanceof YAMLError)) throw err;
    throw new OpenApiDocumentError(`Not a YAML or JSON document: ${err.message.split('\n')[0]}`);
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) throw new OpenApiDocumentError('Not an OpenAPI document (not an object)');
  openApiVersion(doc);
  return doc as JsonObject;
}

/** The document with its internal references replaced by what they point to (the input is not changed). */
export async function dereferenceOpenApi(doc: JsonObject): Promise<JsonObject> {
  try {
    return (await $RefParser.dereference(structuredClone(doc), {
      resolve: { external: false, file: false, http: false },
      dereference: { circular: true },
      mutateInputSchema: true,
      timeoutMs: 10_000,
    })) as JsonObject;
  } catch (err) {
    throw new OpenApiDocumentError(`The document's references cannot be resolved: ${(err as Error).message.split('\n')[0]}`);
  }
}
