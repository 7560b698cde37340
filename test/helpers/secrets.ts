import { capturedLogs } from './test-server.js';

/** Every secret the tests seeded into the server (API keys, client secrets, tokens). */
const seeded = new Set<string>();

/** Registers a secret the log output of the whole run must never contain. */
export function seedSecret(value: string): string {
  if (value.length >= 12) seeded.add(value);
  return value;
}

/** The forms a secret could leak in: as is, base64, base64url, hex, URL-encoded. */
export function leakForms(secret: string): string[] {
  const b = Buffer.from(secret, 'utf8');
  return [secret, b.toString('base64'), b.toString('base64url'), b.toString('hex'), encodeURIComponent(secret)];
}

/** True when `text` contains `secret` in any of its leak forms. */
export function containsSecret(text: string, secret: string): boolean {
  return leakForms(secret).some((f) => text.includes(f));
}

/** Seeded secrets found in the captured logs of the run (their first characters only). */
export function secretsInCapturedLogs(): string[] {
  const logs = capturedLogs.join('');
  return [...seeded].filter((s) => containsSecret(logs, s)).map((s) => `${s.slice(0, 16)}…`);
}
