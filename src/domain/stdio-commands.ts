import path from 'node:path';

/**
 * Which commands stdio upstream servers may run (`TOOLGATE_STDIO_COMMANDS`): an entry that is a
 * name allows any command of that name (`npx` allows `npx` and `/usr/bin/npx`); an absolute path
 * allows that file only. An empty list allows every command.
 */
export function commandAllowed(command: string, allowed: readonly string[]): boolean {
  if (allowed.length === 0) return true;
  const name = path.basename(command);
  return allowed.some((entry) => (path.isAbsolute(entry) ? path.normalize(command) === path.normalize(entry) : entry === name));
}

/**
 * Whether a stdio server may be started: its command is on the list, it is the jailed launch
 * Toolgate itself writes for a generated server (its working directory inside `generatedRoot`), or
 * it names one of Toolgate's own programs (`toolgate:…`).
 */
export function stdioLaunchAllowed(
  command: string,
  cwd: string | null,
  allowed: readonly string[],
  generatedRoot: string | undefined,
): boolean {
  if (generatedRoot && cwd && path.resolve(cwd).startsWith(path.resolve(generatedRoot) + path.sep)) return true;
  // A Toolgate-internal command (`toolgate:openapi-bridge`) is never run as written: Toolgate starts its own bridge.
  if (command.startsWith('toolgate:')) return true;
  return commandAllowed(command, allowed);
}
