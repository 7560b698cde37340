/** How a tool is presented in a bundle (the contract's BundleToolOverride, stored as jsonb). */
export interface ToolOverride {
  name?: string | null;
  title?: string | null;
  description?: string | null;
  annotations?: Record<string, unknown> | null;
  defaults?: Record<string, unknown> | null;
  pinned?: Record<string, unknown> | null;
  hidden_arguments?: string[] | null;
  enabled?: boolean;
}
