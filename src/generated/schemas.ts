// DO NOT EDIT. Generated from openapi.yaml by codegen/generate.ts.
// Regenerate with `npm run codegen`; CI runs `npm run codegen:check` to catch drift.
// openapi.yaml sha256: b4e903e5ffb1261f86050dc12b8462d7120007431fbc0f016ff93297d03dbc66
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

/** `#/components/schemas/ConfigDocument`. */
export const ConfigDocumentSchema = {
  "type": "object",
  "required": [
    "toolgate_config"
  ],
  "additionalProperties": false,
  "properties": {
    "toolgate_config": {
      "type": "integer",
      "const": 1
    },
    "exported_from": {
      "type": "string",
      "maxLength": 2048
    },
    "exported_at": {
      "type": "string",
      "format": "date-time"
    },
    "settings": {
      "type": "object",
      "properties": {
        "log_retention_days": {
          "type": "integer",
          "minimum": 1,
          "maximum": 3650
        },
        "activity_log_retention_days": {
          "type": "integer",
          "minimum": 1,
          "maximum": 3650
        },
        "default_rate_limit_rpm": {
          "type": "integer",
          "minimum": 1,
          "maximum": 100000
        },
        "mcp_session_idle_timeout_minutes": {
          "type": "integer",
          "minimum": 1,
          "maximum": 1440
        },
        "upstream_call_timeout_ms": {
          "type": "integer",
          "minimum": 100,
          "maximum": 600000
        },
        "health_check_interval_seconds": {
          "type": "integer",
          "minimum": 10,
          "maximum": 86400
        },
        "allowed_origins": {
          "type": "array",
          "items": {
            "type": "string",
            "maxLength": 2048,
            "pattern": "^https?://[^/\\s]+$"
          },
          "maxItems": 100,
          "uniqueItems": true
        },
        "outbound_allowlist": {
          "type": "array",
          "items": {
            "type": "string",
            "minLength": 1,
            "maxLength": 255
          },
          "maxItems": 100,
          "uniqueItems": true
        },
        "oauth_client_registration": {
          "type": "string",
          "enum": [
            "open",
            "admin_approval",
            "off"
          ]
        },
        "registry_url": {
          "type": [
            "string",
            "null"
          ],
          "format": "uri",
          "maxLength": 2048,
          "pattern": "^https?://"
        },
        "registry_token": {
          "type": [
            "string",
            "null"
          ],
          "minLength": 1,
          "maxLength": 4096
        }
      },
      "additionalProperties": false,
      "minProperties": 1
    },
    "servers": {
      "type": "array",
      "maxItems": 1000,
      "items": {
        "type": "object",
        "required": [
          "name",
          "transport"
        ],
        "properties": {
          "name": {
            "type": "string",
            "minLength": 1,
            "maxLength": 255,
            "pattern": "^[A-Za-z0-9][A-Za-z0-9_.-]*$"
          },
          "description": {
            "type": [
              "string",
              "null"
            ],
            "maxLength": 10000
          },
          "transport": {
            "type": "string",
            "enum": [
              "stdio",
              "streamable_http",
              "sse"
            ]
          },
          "command": {
            "type": "string",
            "minLength": 1,
            "maxLength": 4096
          },
          "args": {
            "type": "array",
            "items": {
              "type": "string",
              "maxLength": 4096
            },
            "maxItems": 256
          },
          "env": {
            "type": "object",
            "maxProperties": 100,
            "propertyNames": {
              "pattern": "^[A-Za-z_][A-Za-z0-9_]{0,255}$"
            },
            "additionalProperties": {
              "type": "string",
              "maxLength": 32768
            }
          },
          "secret_env": {
            "type": "object",
            "maxProperties": 100,
            "propertyNames": {
              "pattern": "^[A-Za-z_][A-Za-z0-9_]{0,255}$"
            },
            "additionalProperties": {
              "type": "string",
              "maxLength": 32768
            }
          },
          "cwd": {
            "type": "string",
            "minLength": 1,
            "maxLength": 4096
          },
          "url": {
            "type": "string",
            "format": "uri",
            "maxLength": 2048,
            "pattern": "^https?://"
          },
          "headers": {
            "type": "object",
            "maxProperties": 50,
            "propertyNames": {
              "pattern": "^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,256}$"
            },
            "additionalProperties": {
              "type": "string",
              "maxLength": 8192
            }
          },
          "enabled": {
            "type": "boolean"
          },
          "call_timeout_ms": {
            "type": "integer",
            "minimum": 100,
            "maximum": 600000
          },
          "tool_changes": {
            "type": "string",
            "enum": [
              "require_approval",
              "accept"
            ]
          },
          "health_check_interval_seconds": {
            "type": "integer",
            "minimum": 10,
            "maximum": 86400
          },
          "sandboxed": {
            "type": "boolean"
          },
          "auth_mode": {
            "type": "string",
            "enum": [
              "none",
              "oauth_per_user",
              "oauth_shared",
              "oauth_token_exchange"
            ]
          },
          "oauth": {
            "type": "object",
            "properties": {
              "client_id": {
                "type": [
                  "string",
                  "null"
                ],
                "minLength": 1,
                "maxLength": 2048
              },
              "client_secret": {
                "type": [
                  "string",
                  "null"
                ],
                "minLength": 1,
                "maxLength": 8192
              },
              "token_endpoint_auth_method": {
                "oneOf": [
                  {
                    "type": "string",
                    "enum": [
                      "client_secret_basic",
                      "client_secret_post",
                      "private_key_jwt",
                      "none"
                    ]
                  },
                  {
                    "type": "null"
                  }
                ]
              },
              "scopes": {
                "type": "array",
                "maxItems": 50,
                "uniqueItems": true,
                "items": {
                  "type": "string",
                  "minLength": 1,
                  "maxLength": 255,
                  "pattern": "^[\\x21\\x23-\\x5B\\x5D-\\x7E]+$"
                }
              }
            },
            "additionalProperties": false
          }
        },
        "additionalProperties": false,
        "if": {
          "properties": {
            "transport": {
              "const": "stdio"
            }
          },
          "required": [
            "transport"
          ]
        },
        "then": {
          "required": [
            "command"
          ],
          "properties": {
            "command": {
              "type": "string"
            },
            "url": false,
            "headers": false,
            "auth_mode": {
              "const": "none"
            },
            "oauth": false
          }
        },
        "else": {
          "required": [
            "url"
          ],
          "properties": {
            "url": {
              "type": "string"
            },
            "command": false,
            "args": false,
            "env": false,
            "secret_env": false,
            "cwd": false,
            "sandboxed": {
              "const": false
            }
          }
        }
      }
    },
    "openapi_documents": {
      "type": "object",
      "maxProperties": 1000,
      "additionalProperties": {
        "type": "string",
        "minLength": 1,
        "maxLength": 4194304
      }
    },
    "tool_selection": {
      "type": "object",
      "maxProperties": 1000,
      "additionalProperties": {
        "type": "object",
        "maxProperties": 10000,
        "propertyNames": {
          "minLength": 1,
          "maxLength": 512
        },
        "additionalProperties": {
          "type": "boolean"
        }
      }
    },
    "bundles": {
      "type": "array",
      "maxItems": 1000,
      "items": {
        "type": "object",
        "required": [
          "name"
        ],
        "additionalProperties": false,
        "properties": {
          "name": {
            "type": "string",
            "minLength": 1,
            "maxLength": 255
          },
          "description": {
            "type": [
              "string",
              "null"
            ],
            "maxLength": 10000
          },
          "agent_id": {
            "type": [
              "string",
              "null"
            ],
            "format": "uuid"
          },
          "tools": {
            "type": "array",
            "maxItems": 1000,
            "items": {
              "type": "object",
              "required": [
                "server",
                "tool"
              ],
              "additionalProperties": false,
              "properties": {
                "server": {
                  "type": "string",
                  "minLength": 1,
                  "maxLength": 255
                },
                "tool": {
                  "type": "string",
                  "minLength": 1,
                  "maxLength": 512
                },
                "display_order": {
                  "type": "integer",
                  "minimum": 0,
                  "maximum": 1000000
                },
                "override": {
                  "type": "object",
                  "additionalProperties": false,
                  "properties": {
                    "name": {
                      "type": [
                        "string",
                        "null"
                      ],
                      "maxLength": 128,
                      "pattern": "^[A-Za-z0-9_.-]{1,128}$"
                    },
                    "title": {
                      "type": [
                        "string",
                        "null"
                      ],
                      "maxLength": 255
                    },
                    "description": {
                      "type": [
                        "string",
                        "null"
                      ],
                      "maxLength": 10000
                    },
                    "annotations": {
                      "oneOf": [
                        {
                          "type": "object",
                          "properties": {
                            "title": {
                              "type": "string",
                              "maxLength": 255
                            },
                            "readOnlyHint": {
                              "type": "boolean"
                            },
                            "destructiveHint": {
                              "type": "boolean"
                            },
                            "idempotentHint": {
                              "type": "boolean"
                            },
                            "openWorldHint": {
                              "type": "boolean"
                            }
                          },
                          "additionalProperties": false
                        },
                        {
                          "type": "null"
                        }
                      ]
                    },
                    "defaults": {
                      "type": [
                        "object",
                        "null"
                      ],
                      "maxProperties": 100,
                      "propertyNames": {
                        "maxLength": 255
                      },
                      "additionalProperties": true
                    },
                    "pinned": {
                      "type": [
                        "object",
                        "null"
                      ],
                      "maxProperties": 100,
                      "propertyNames": {
                        "maxLength": 255
                      },
                      "additionalProperties": true
                    },
                    "hidden_arguments": {
                      "type": [
                        "array",
                        "null"
                      ],
                      "items": {
                        "type": "string",
                        "minLength": 1,
                        "maxLength": 255
                      },
                      "maxItems": 100,
                      "uniqueItems": true
                    },
                    "enabled": {
                      "type": "boolean"
                    }
                  }
                }
              }
            }
          }
        }
      }
    }
  }
} as const;
