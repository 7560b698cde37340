/**
 * What a server without its own call timeout or health-check interval follows: the general
 * settings `upstream_call_timeout_ms` and `health_check_interval_seconds`, read when they are
 * needed, so a change of the setting reaches those servers at once.
 */
export interface ServerDefaults {
  callTimeoutMs: number;
  healthCheckIntervalSeconds: number;
}

/** Built-in values, used until general settings provide others. */
export const BUILTIN_SERVER_DEFAULTS: ServerDefaults = { callTimeoutMs: 60_000, healthCheckIntervalSeconds: 60 };
