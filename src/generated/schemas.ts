// DO NOT EDIT. Generated from openapi.yaml by codegen/generate.ts.
// Regenerate with `npm run codegen`; CI runs `npm run codegen:check` to catch drift.
// openapi.yaml sha256: 4b7f8b8613dccf577423ade010a1ddd8bd3c2be4f7a32e98e256964637ebccd6
/**
 * JSON Schemas of contract components the server validates itself at run time (documents it
 * fetches), copied from openapi.yaml without their documentation keys. Their types are
 * `components['schemas'][name]` in ./openapi.ts.
 */

/** `#/components/schemas/CatalogIndex`. */
export const CatalogIndexSchema = {
  "type": "object",
  "required": [
    "skills"
  ],
  "properties": {
    "skills": {
      "type": "array",
      "maxItems": 1000,
      "items": {
        "type": "object",
        "required": [
          "name",
          "description"
        ],
        "properties": {
          "name": {
            "type": "string",
            "maxLength": 64,
            "pattern": "^[a-z0-9]+(-[a-z0-9]+)*$"
          },
          "description": {
            "type": "string",
            "minLength": 1,
            "maxLength": 1024
          },
          "path": {
            "type": "string",
            "maxLength": 1024
          },
          "url": {
            "type": "string",
            "maxLength": 2048
          },
          "files": {
            "type": "array",
            "maxItems": 100,
            "items": {
              "type": "string",
              "maxLength": 1024
            }
          },
          "author": {
            "type": "string",
            "maxLength": 255
          },
          "version": {
            "type": "string",
            "maxLength": 64
          },
          "license": {
            "type": "string",
            "maxLength": 255
          },
          "tags": {
            "type": "array",
            "maxItems": 50,
            "items": {
              "type": "string",
              "maxLength": 64
            }
          },
          "metadata": {
            "type": "object"
          }
        }
      }
    }
  },
  "additionalProperties": true
} as const;
